import sys, os, re, csv, datetime
d = sys.argv[1]
marks = {}
for line in open(os.path.join(d, 'marks.txt')):
    m = re.match(r'== (\S+) (\S+)', line)
    if m: marks[m.group(1)] = m.group(2)
rows = []
for r in list(csv.reader(open(os.path.join(d, 'clocks.csv'))))[1:]:
    try:
        t = datetime.datetime.strptime(r[0].strip(), '%Y/%m/%d %H:%M:%S.%f')
        rows.append((t.time(), int(r[1]), int(r[3]), int(r[4])))
    except Exception: pass
def ptime(s):
    return datetime.datetime.strptime(s[:15], '%H:%M:%S.%f').time()
print('%-26s %7s %7s %7s %7s %7s %7s %7s %10s %6s %9s %s' % ('run', 'proj', 'sort', 'raster', 'pairs', 'tsort', 'blend', 'total', 'pairs/fr', 'p/spl', 'peakMiB', 'SM MHz busy min/med'))
for tag in marks:
    f = os.path.join(d, tag + '.txt')
    if not os.path.exists(f): continue
    txt = open(f).read()
    def med(name):
        m = re.search(r'^\s*' + name + r'\s+([\d.]+)', txt, re.M)
        return m.group(1) if m else '-'
    pm = re.search(r'up to (\d+) \(tile, splat\) pairs', txt)
    pairs = int(pm.group(1)) if pm else 0
    n = int(re.search(r'_(\d+)_r', tag).group(1))
    end = re.search(r'end (\S+)', txt)
    t0 = ptime(marks[tag]); t1 = ptime(end.group(1)) if end else t0
    win = [x for x in rows if t0 <= x[0] <= t1]
    busy = sorted(x[1] for x in win if x[2] > 50)
    mem = max((x[3] for x in win), default=0)
    clk = '%d/%d' % (busy[0], busy[len(busy)//2]) if busy else '-'
    bm = re.search(r'scene: ([\d.]+) bytes a splat', txt)
    print('%-26s %7s %7s %7s %7s %7s %7s %7s %10d %6.2f %9d %s %s' % (tag, med('projection'), med('depth sort'), med('raster'), med('pairs'), med('tile sort'), med('blend'), med('total'), pairs, pairs / n, mem, clk, bm.group(1) + ' B/splat' if bm else ''))
