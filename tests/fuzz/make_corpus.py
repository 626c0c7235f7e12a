# Writes the seed corpus of fuzz_scene (tests/fuzz/corpus): one small valid file per path
# through the loader. Run from anywhere: python3 tests/fuzz/make_corpus.py
import struct, random, os
random.seed(3)
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus')
def ply(props, n, rows, pre=b'', fmt='binary_little_endian'):
    h = 'ply\nformat %s 1.0\nelement vertex %d\n' % (fmt, n)
    h += ''.join('property %s %s\n' % (t, nm) for t, nm in props)
    h += 'end_header\n'
    return pre + h.encode() + rows
std = ['x','y','z','f_dc_0','f_dc_1','f_dc_2','opacity','scale_0','scale_1','scale_2','rot_0','rot_1','rot_2','rot_3']
def rows(props, n):
    b = b''
    codes = {'float':'f','double':'d','uchar':'B','char':'b','short':'h','ushort':'H','int':'i','uint':'I'}
    for i in range(n):
        for t, nm in props:
            v = random.uniform(-2, 2) if t in ('float','double') else random.randint(0, 100)
            b += struct.pack('<' + codes[t], v)
    return b
# SH 0, float, 2 splats
p = [('float', n) for n in std]
open(out + '/sh0.ply', 'wb').write(ply(p, 2, rows(p, 2)))
# SH 1, mixed types, alphabetical
p = [('float', n) for n in std] + [('float', 'f_rest_%d' % i) for i in range(9)]
p.sort(key=lambda t: t[1])
p = [(['float','double','uchar','short'][i % 4], nm) for i, (t, nm) in enumerate(p)]
open(out + '/sh1_mixed.ply', 'wb').write(ply(p, 2, rows(p, 2)))
# .splat, 2 splats
b = b''
for i in range(2):
    b += struct.pack('<6f', *[random.uniform(-1, 1) for _ in range(3)], 0.1, 0.2, 0.3) + bytes([200, 100, 50, 255, 255, 128, 128, 128])
open(out + '/two.splat', 'wb').write(b'\x01' + b[1:])
# compressed, 1 chunk, 2 splats, SH 1 element
h = 'ply\nformat binary_little_endian 1.0\nelement chunk 1\n'
names = ['min_x','min_y','min_z','max_x','max_y','max_z','min_scale_x','min_scale_y','min_scale_z','max_scale_x','max_scale_y','max_scale_z','min_r','min_g','min_b','max_r','max_g','max_b']
h += ''.join('property float %s\n' % n for n in names)
h += 'element vertex 2\nproperty uint packed_position\nproperty uint packed_rotation\nproperty uint packed_scale\nproperty uint packed_color\n'
h += 'element sh 2\n' + ''.join('property uchar f_rest_%d\n' % i for i in range(9)) + 'end_header\n'
d = struct.pack('<18f', -1,-1,-1,1,1,1,-5,-5,-5,-1,-1,-1,0,0,0,1,1,1)
d += struct.pack('<8I', *[random.getrandbits(32) for _ in range(8)])
d += bytes(random.getrandbits(8) for _ in range(18))
open(out + '/compressed.ply', 'wb').write(h.encode() + d)
# extra elements before and after, and a list after
p = [('float', n) for n in std]
h = 'ply\nformat binary_little_endian 1.0\nelement cam 1\nproperty float f\nelement vertex 1\n' + ''.join('property float %s\n' % n for t, n in p) + 'element face 1\nproperty list uchar int idx\nend_header\n'
open(out + '/elements.ply', 'wb').write(h.encode() + struct.pack('<f', 1) + rows(p, 1) + bytes([2]) + struct.pack('<2i', 0, 1))
