# Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/): small valid files,
# one per path through each parser, generated here, plus cut-down copies (header + a few splats)
# of the real scenes in ../shared/scenes when that folder exists. Run from anywhere:
#   python3 tests/fuzz/make_corpus.py [SCENES_DIR]
# The output is the same on every run (fixed seeds). Only the CC0 scenes (MANIFEST.md there) keep
# their own splats; of the others only the header (the property layout) is kept and the rows are
# generated, so no licensed data is copied into the repository.
import json, math, os, random, re, shutil, struct, sys

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, 'corpus')
scenes = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, '..', '..', '..', 'shared', 'scenes')
CC0 = {'animu_leica-sofort-top8192.ply', 'animu_yashica-t4-top8192.ply'}
C0 = 0.28209479177387814

codes = {'char': 'b', 'int8': 'b', 'uchar': 'B', 'uint8': 'B', 'short': 'h', 'int16': 'h', 'ushort': 'H',
         'uint16': 'H', 'int': 'i', 'int32': 'i', 'uint': 'I', 'uint32': 'I', 'float': 'f', 'float32': 'f',
         'double': 'd', 'float64': 'd'}
std = ['x', 'y', 'z', 'f_dc_0', 'f_dc_1', 'f_dc_2', 'opacity', 'scale_0', 'scale_1', 'scale_2',
       'rot_0', 'rot_1', 'rot_2', 'rot_3']


def write(target, name, data):
    assert len(data) < 20000, (name, len(data))
    with open(os.path.join(out, target, name), 'wb') as f:
        f.write(data)


def rest(degree):
    return ['f_rest_%d' % i for i in range(3 * ((degree + 1) ** 2 - 1))]


def value(rng, name, t):
    """A plausible raw (pre-activation) value for a 3DGS property."""
    if name in ('x', 'y', 'z'):
        v = rng.gauss(0, 1.5)
    elif name.startswith('scale_'):
        v = rng.uniform(-6, -1)
    elif name.startswith('rot_'):
        v = rng.uniform(-1, 1)
    elif name == 'opacity':
        v = rng.uniform(-3, 6)
    elif name.startswith('f_dc_'):
        v = rng.uniform(-1.5, 1.5)
    elif name.startswith('f_rest_'):
        v = rng.gauss(0, 0.05)
    else:  # normals, extras
        v = 0.0
    if codes[t] in 'fd':
        return v
    lo, hi = {'b': (-128, 127), 'B': (0, 255), 'h': (-32768, 32767), 'H': (0, 65535),
              'i': (-2 ** 31, 2 ** 31 - 1), 'I': (0, 2 ** 32 - 1)}[codes[t]]
    return max(lo, min(hi, int(round(v * 20))))


def row(props, vals):
    return b''.join(struct.pack('<' + codes[t], vals[n]) for t, n in props)


def ply(props, rows, n=None, elements_before='', elements_after='', nl='\n', extra=''):
    n = len(rows) if n is None else n
    h = 'ply' + nl + 'format binary_little_endian 1.0' + nl + extra + elements_before
    h += 'element vertex %d' % n + nl + ''.join('property %s %s' % (t, nm) + nl for t, nm in props)
    h += elements_after + 'end_header' + nl
    return h.encode(), b''.join(rows)


def gen_rows(rng, props, n, override=None):
    rows = []
    for i in range(n):
        vals = {nm: value(rng, nm, t) for t, nm in props}
        if override and i in override:
            vals.update(override[i])
        rows.append(row(props, vals))
    return rows


# ---- PLY, generated ---------------------------------------------------------------------------

def gen_ply():
    rng = random.Random(3)
    p = [('float', n) for n in std]
    h, d = ply(p, gen_rows(rng, p, 2))
    write('ply', 'sh0.ply', h + d)

    # SH 1, properties in alphabetical order, four scalar types
    p = sorted([('float', n) for n in std + rest(1)], key=lambda t: t[1])
    p = [(['float', 'double', 'uchar', 'short'][i % 4], nm) for i, (t, nm) in enumerate(p)]
    h, d = ply(p, gen_rows(rng, p, 2))
    write('ply', 'sh1_mixed.ply', h + d)

    # SH 2, all double, normals
    p = [('double', n) for n in ['x', 'y', 'z', 'nx', 'ny', 'nz'] + std[3:6] + rest(2) + std[6:]]
    h, d = ply(p, gen_rows(rng, p, 2))
    write('ply', 'sh2_double.ply', h + d)

    # SH 3, every type name (and its sized alias) once at least
    types = list(codes)
    p = [(types[i % len(types)], n) for i, n in enumerate(std + rest(3))]
    h, d = ply(p, gen_rows(rng, p, 1))
    write('ply', 'sh3_types.ply', h + d)

    # CRLF lines, comments, obj_info, tabs and extra spaces between words
    p = [('float', n) for n in std]
    h, d = ply(p, gen_rows(rng, p, 2), nl='\r\n', extra='comment made by make_corpus.py\r\nobj_info x\r\n')
    h = h.replace(b'property float x', b'property\tfloat  x')
    write('ply', 'crlf_comments.ply', h + d)

    # the non-finite policy: NaN position (dropped), +-inf opacity (clamped), zero rotation
    # (dropped), a double opacity beyond float range (+inf: clamped), and one plain splat
    p = [('float', n) for n in std[:6]] + [('double', 'opacity')] + [('float', n) for n in std[7:]]
    inf, nan = float('inf'), float('nan')
    over = {0: {'x': nan}, 1: {'opacity': inf}, 2: {'opacity': -inf},
            3: {'rot_0': 0.0, 'rot_1': 0.0, 'rot_2': 0.0, 'rot_3': 0.0}, 4: {'opacity': 1e300}}
    h, d = ply(p, gen_rows(rng, p, 6, over))
    write('ply', 'nonfinite.ply', h + d)

    # elements before and after the vertices, a list property after them
    p = [('float', n) for n in std]
    h, d = ply(p, gen_rows(rng, p, 1), elements_before='element camera 1\nproperty float f\n',
               elements_after='element face 1\nproperty list uchar int vertex_indices\n')
    write('ply', 'elements.ply', h + struct.pack('<f', 1.0) + d + bytes([2]) + struct.pack('<2i', 0, 1))

    # compressed: 1 chunk, 3 splats, SH degree 1 element
    write('ply', 'compressed_sh1.ply', compressed(rng, 3, 1, True, 1))
    # compressed: 2 chunks (257 splats), no colour range, no SH
    write('ply', 'compressed_257.ply', compressed(rng, 257, 2, False, 0))
    # compressed: SH degree 3
    write('ply', 'compressed_sh3.ply', compressed(rng, 2, 1, True, 3))


CHUNK = ['min_x', 'min_y', 'min_z', 'max_x', 'max_y', 'max_z', 'min_scale_x', 'min_scale_y', 'min_scale_z',
         'max_scale_x', 'max_scale_y', 'max_scale_z', 'min_r', 'min_g', 'min_b', 'max_r', 'max_g', 'max_b']
PACKED = ['packed_position', 'packed_rotation', 'packed_scale', 'packed_color']


def chunk_row(rng, colour):
    lo = [rng.uniform(-3, 0) for _ in range(3)]
    v = lo + [x + rng.uniform(0.1, 2) for x in lo] + [rng.uniform(-8, -5)] * 3 + [rng.uniform(-3, -1)] * 3
    if colour:
        v += [rng.uniform(-0.2, 0.3) for _ in range(3)] + [rng.uniform(0.6, 1.2) for _ in range(3)]
    return struct.pack('<%df' % len(v), *v)


def compressed(rng, n, nchunks, colour, degree, head=None):
    names = CHUNK if colour else CHUNK[:12]
    if head is None:
        h = 'ply\nformat binary_little_endian 1.0\nelement chunk %d\n' % nchunks
        h += ''.join('property float %s\n' % c for c in names)
        h += 'element vertex %d\n' % n + ''.join('property uint %s\n' % c for c in PACKED)
        if degree:
            h += 'element sh %d\n' % n + ''.join('property uchar %s\n' % r for r in rest(degree))
        h += 'end_header\n'
        head = h.encode()
    d = b''.join(chunk_row(rng, colour) for _ in range(nchunks))
    for _ in range(n):
        d += struct.pack('<4I', *[rng.getrandbits(32) for _ in range(4)])
    if degree:
        d += bytes(rng.getrandbits(8) for _ in range(n * len(rest(degree))))
    return head + d


# ---- PLY, cut down from the real scenes --------------------------------------------------------

def header_of(data):
    end = data.index(b'end_header')
    end = data.index(b'\n', end) + 1
    return data[:end], data[end:]


def parse_elements(header):
    elems = []
    for line in header.decode('latin-1').splitlines():
        w = line.split()
        if w[:1] == ['element']:
            elems.append([w[1], int(w[2]), []])
        elif w[:1] == ['property'] and w[1] != 'list':
            elems[-1][2].append((w[1], w[2]))
    return elems


def cut_real(name, keep):
    with open(os.path.join(scenes, name), 'rb') as f:
        data = f.read()
    header, body = header_of(data)
    elems = parse_elements(header)
    rng = random.Random(name)
    new_header = header
    for el, count, props in elems:
        new = {'vertex': keep, 'chunk': 1, 'sh': keep}.get(el, count)
        new_header = new_header.replace(b'element %s %d\n' % (el.encode(), count),
                                        b'element %s %d\n' % (el.encode(), new))
    names = [e[0] for e in elems]
    if 'chunk' in names:  # compressed: generated chunk bounds and packed words
        colour = any(p[1] == 'min_r' for p in elems[names.index('chunk')][2])
        sh = elems[names.index('sh')][2] if 'sh' in names else []
        degree = {0: 0, 9: 1, 24: 2, 45: 3}[len(sh)]
        return compressed(rng, keep, 1, colour, degree, head=new_header)
    assert names == ['vertex'], names
    props = elems[0][2]
    if name in CC0:
        stride = sum(struct.calcsize(codes[t]) for t, _ in props)
        return new_header + body[:keep * stride]
    # The godot tyre has +inf opacities: keep that edge in the generated rows.
    over = {1: {'opacity': float('inf')}} if name.startswith('godot') else None
    return new_header + b''.join(gen_rows(rng, props, keep, over))


def leica_as_splat(n):
    """The first n splats of the CC0 leica scene in .splat form (activated, quantised)."""
    with open(os.path.join(scenes, 'animu_leica-sofort-top8192.ply'), 'rb') as f:
        data = f.read()
    header, body = header_of(data)
    props = parse_elements(header)[0][2]
    fmt = '<' + ''.join(codes[t] for t, _ in props)
    size = struct.calcsize(fmt)
    out_rows = b''
    for i in range(n):
        v = dict(zip([nm for _, nm in props], struct.unpack_from(fmt, body, i * size)))
        q = [v['rot_%d' % k] for k in range(4)]
        qn = math.sqrt(sum(c * c for c in q))
        byte = lambda x: max(0, min(255, int(round(x))))
        out_rows += struct.pack('<6f', v['x'], v['y'], v['z'], *[math.exp(v['scale_%d' % k]) for k in range(3)])
        out_rows += bytes([byte((0.5 + C0 * v['f_dc_%d' % k]) * 255) for k in range(3)])
        out_rows += bytes([byte(255 / (1 + math.exp(-v['opacity'])))])
        out_rows += bytes([byte(c / qn * 128 + 128) for c in q])
    return out_rows


# ---- .splat -------------------------------------------------------------------------------------

def gen_splat():
    rng = random.Random(5)
    def one(p, s, rgba, q):
        return struct.pack('<6f', *p, *s) + bytes(rgba) + bytes(q)
    b = b''.join(one([rng.uniform(-1, 1) for _ in range(3)], [0.01, 0.02, 0.03],
                     [rng.getrandbits(8) for _ in range(4)], [200, 100, 128, 140]) for _ in range(3))
    write('splat', 'three.splat', b)
    write('splat', 'one.splat', one([0, 0, 0], [1, 1, 1], [255, 255, 255, 255], [255, 128, 128, 128]))
    # dropped by the policy: NaN position, negative scale, zero rotation (all bytes 128); one kept
    nan = float('nan')
    b = one([nan, 0, 0], [1, 1, 1], [1, 2, 3, 4], [255, 128, 128, 128])
    b += one([0, 0, 0], [-1, 1, 1], [1, 2, 3, 4], [255, 128, 128, 128])
    b += one([0, 0, 0], [1, 1, 1], [1, 2, 3, 4], [128, 128, 128, 128])
    b += one([1, 2, 3], [0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0])
    write('splat', 'policy.splat', b)


# ---- cameras.json -------------------------------------------------------------------------------

def rotation(rng):
    """A random rotation matrix (camera-to-world) from a unit quaternion, as float32 would print."""
    w, x, y, z = (rng.gauss(0, 1) for _ in range(4))
    n = math.sqrt(w * w + x * x + y * y + z * z)
    w, x, y, z = w / n, x / n, y / n, z / n
    r = [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
         [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
         [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
    return [[struct.unpack('<f', struct.pack('<f', c))[0] for c in rr] for rr in r]


def camera(rng, i, name, w=1959, h=1090):
    # 3DGS camera_to_JSON: id, img_name, width, height, position, rotation, fy, fx (in this order)
    f = rng.uniform(0.8, 1.2) * w
    return {'id': i, 'img_name': name, 'width': w, 'height': h,
            'position': [rng.uniform(-4, 4) for _ in range(3)], 'rotation': rotation(rng),
            'fy': f * rng.uniform(0.99, 1.01), 'fx': f}


def gen_cameras():
    rng = random.Random(7)
    # as 3DGS training writes it: json.dump of the list, one line
    cams = [camera(rng, i, '%05d' % (i + 1)) for i in range(2)]
    write('cameras', '3dgs_two.json', json.dumps(cams).encode())
    # a scene's worth, mip-NeRF 360 names
    cams = [camera(rng, i, 'DSC%05d' % (7956 + i), 4946, 3286) for i in range(12)]
    write('cameras', 'mipnerf_twelve.json', json.dumps(cams).encode())
    # pretty-printed, keys in another order, CRLF, with a UTF-8 byte order mark
    cams = [camera(rng, 0, 'frame_0001.png', 800, 800)]
    text = json.dumps(cams, indent=2, sort_keys=True).replace('\n', '\r\n')
    write('cameras', 'bom_pretty.json', b'\xef\xbb\xbf' + text.encode())
    # names through escapes and raw UTF-8, extra members of every JSON type, number forms
    text = ('[{"id": 17, "img_name": "caf\\u00e9 \\"2\\" \\\\ \\/ \\b\\f\\n\\r\\t \\ud83d\\ude00 \u00e9\u20ac",'
            ' "width": 1920, "height": 1080, "extra": {"nested": [true, false, null, -1.5e-3, 2E+2, -0, 0.5]},'
            ' "position": [-0.5, 1e2, 0], "rotation": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],'
            ' "fy": 1111.5, "fx": 1000, "cx": 960.0, "cy": 540.0}]')
    write('cameras', 'names_extras.json', text.encode('utf-8'))
    write('cameras', 'empty.json', b'[]\n')
    # the largest values accepted: 65536-pixel sides, ids at 2^53, focal lengths near float limits
    cams = [camera(rng, 9007199254740992, 'big', 65536, 1), camera(rng, -9007199254740992, 'small', 1, 65536)]
    cams[0]['fx'], cams[1]['fy'] = 3.0e38, 1.5e-45
    write('cameras', 'limits.json', json.dumps(cams).encode())


def lod_file(rng, leaves, tree, degree):
    """A .lod (docs/formats.md): `tree` lists the interior nodes breadth first as (first_child,
    child_count); each node's Gaussian is made up (the reader checks values, not how they were merged)."""
    import zlib
    n = len(tree)
    body = b''.join(struct.pack('<I', f) for f, _ in tree)
    counts = bytes(c for _, c in tree)
    body += counts + b'\0' * ((4 - n % 4) % 4)
    halves = 3 * (degree + 1) ** 2
    for _ in tree:
        q = [rng.uniform(-1, 1) for _ in range(4)]
        norm = math.sqrt(sum(v * v for v in q))
        body += struct.pack('<11f', *[rng.gauss(0, 2) for _ in range(3)], *[rng.uniform(0.01, 1) for _ in range(3)],
                            *[v / norm for v in q], rng.uniform(0, 1))
        body += struct.pack('<%de' % halves, *[rng.uniform(-2, 2) for _ in range(halves)])
        body += b'\0' * ((4 - 2 * halves % 4) % 4)
    header = b'SPLATLOD' + struct.pack('<7I', 1, 64, leaves, n, degree, 0, zlib.crc32(body))
    return header + b'\0' * (64 - len(header)) + body


def gen_lod():
    rng = random.Random(11)
    # 20 leaves: a root over three nodes of 8, 8 and 4 leaves
    write('lod', 'twenty_sh0.lod', lod_file(rng, 20, [(21, 3), (0, 8), (8, 8), (16, 4)], 0))
    write('lod', 'one_leaf_sh3.lod', lod_file(rng, 1, [(0, 1)], 3))
    # three levels, SH degree 2 (padded records): 12 leaves under 2 nodes under 2 nodes
    write('lod', 'levels_sh2.lod', lod_file(rng, 12, [(13, 2), (15, 1), (16, 1), (0, 6), (6, 6)], 2))


def main():
    for t in ('ply', 'splat', 'cameras', 'lod'):
        shutil.rmtree(os.path.join(out, t), ignore_errors=True)
        os.makedirs(os.path.join(out, t))
    gen_ply()
    gen_splat()
    gen_cameras()
    gen_lod()
    if not os.path.isdir(scenes):
        print('make_corpus: %s not found: no seeds from the real scenes' % scenes)
        return
    for name in sorted(os.listdir(scenes)):
        base = re.sub(r'\.(compressed\.)?ply$', '', name)
        if name.endswith('.ply'):
            write('ply', 'real_%s.ply' % base, cut_real(name, 3))
    if os.path.exists(os.path.join(scenes, 'animu_leica-sofort-top8192.ply')):
        write('splat', 'real_leica_from_ply.splat', leica_as_splat(4))


main()
