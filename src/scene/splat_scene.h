/* splat_scene.h: loading Gaussian-splat scenes (.ply, .splat, .spz, SOG) into flat CPU arrays, and
 * writing them as standard 3DGS .ply or as .spz; the cameras.json beside a trained scene (at the
 * end). CPU only; no Vulkan.
 *
 * Formats, chosen by content (the "ply" magic), then the .splat extension, then the .spz
 * magic (gzip or "NGSP"), then a zip archive (bundled SOG), then the name:
 *   - 3DGS .ply, binary little-endian or ASCII: properties found by name in any order,
 *     any PLY scalar type (converted to float), SH degree 0..3 from the number of
 *     f_rest_* properties, unknown properties and other fixed-size elements skipped. ASCII
 *     rows are one a line; numbers are read as in the C locale whatever the process's is
 *     (strtof_l), integer properties must be integers in their type's range, and a row with
 *     too few or too many values is an error naming its line.
 *   - PlayCanvas/SuperSplat compressed .ply (element "chunk" + packed_* vertex
 *     properties, optional "sh" element).
 *   - antimatter15 .splat, 32 bytes a splat, SH degree 0.
 *   - Niantic .spz, versions 1-3 (gzip) and 4 (ZSTD streams), SH degree 0..3; its
 *     antialiased flag sets SPLAT_SCENE_ANTIALIASED. .spz stores y up and z back; the
 *     loader turns it into the .ply axes (y down, z forward), so a .ply written as .spz
 *     loads in place (docs/formats.md has the details and the quantisation).
 *   - PlayCanvas SOG, versions 1 and 2, SH degree 0..3 (docs/formats.md has the layout): a
 *     meta.json naming lossless WebP images beside it (give splat_scene_load the meta.json,
 *     or the folder holding it), or the bundled form, a zip archive (.sog; stored or
 *     deflated entries) that splat_scene_load_memory reads too. A meta.json needs its
 *     images, so splat_scene_load_memory refuses one. The "antialiased" model sets
 *     SPLAT_SCENE_ANTIALIASED.
 *   - PlayCanvas streamed (LOD) SOG bundles, as splat-transform writes them: a lod-meta.json
 *     (give splat_scene_load its path, or the folder holding it when that has no meta.json)
 *     naming folders of SOG chunks; one level of detail (splat_load_options.lod_level, 0: the
 *     finest) loads as one scene, its chunks' ranges in the order of the bundle's tree (the
 *     order splat-transform's own reader gives). Its environment SOG is not read.
 *
 * Values are stored activated, as the reference 3DGS renderer uses them: scale =
 * exp(scale_i), opacity = sigmoid(opacity), rotation normalised.
 *
 * Non-finite values follow one fixed policy, so a scene loads the same everywhere.
 * Every value is first converted to float (a double beyond float range becomes
 * +-inf), then:
 *   - a non-finite position, scale (before or after exp) or rotation component, a
 *     zero-length rotation, a NaN opacity or any non-finite SH coefficient drops
 *     the splat (counted in `dropped`), as does a negative .splat scale;
 *   - an opacity of +inf or -inf is kept, activated to exactly 1 or 0 (counted in
 *     `clamped`, kept splats only).
 * Kept splats keep their order. A file whose splats are all dropped is an error.
 *
 * Errors: every function returns 0 on success and -1 on failure (splat_scene_load_ex and _ex2
 * also SPLAT_SCENE_CANCELLED), with a one-line message "<path>: <what is wrong>" in err (truncated
 * to err_size; err may be NULL).
 * Nothing aborts, nothing prints.
 */
#ifndef SPLAT_SCENE_H
#define SPLAT_SCENE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SPLAT_SCENE_MAX_SH_DEGREE 3
/* The degree-0 SH basis constant: colour = 0.5 + SPLAT_SH_C0 * f_dc. */
#define SPLAT_SH_C0 0.28209479177387814

typedef struct splat_scene {
  uint32_t count;          /* splats kept */
  uint32_t sh_degree;      /* 0..3 */
  uint32_t sh_coeffs;      /* (sh_degree+1)^2 */
  float *positions;        /* 3*count: x,y,z */
  float *scales;           /* 3*count, activated: exp(scale_i) */
  float *rotations;        /* 4*count: w,x,y,z (rot_0..rot_3), normalised */
  float *opacities;        /* count, activated: sigmoid(opacity) */
  float *sh;               /* count*sh_coeffs*3: for splat i, coefficient k, channel c:
                              sh[(i*sh_coeffs + k)*3 + c]; k=0 is f_dc_c */
  float bounds_min[3], bounds_max[3];  /* of kept positions */
  uint32_t dropped;        /* splats dropped for non-finite values */
  uint32_t clamped;        /* values clamped (e.g. +inf opacity -> 1) */
  uint32_t flags;          /* splat_scene_flag_bits the file declares */
} splat_scene;

typedef enum splat_scene_flag_bits {
  /* Trained with the mip-splatting / anti-aliased 2D filter: the projection scales each
   * splat's opacity by sqrt(det(cov2d) / det(cov2d + dilation)) (splat_project.h). A .ply says so
   * in a header comment: Brush's "comment SplatRenderMode: mip" or Postshot's
   * "comment antialiased 1" (any case; the last such comment wins; "SplatRenderMode:
   * default" / "antialiased 0" clear it). splat_scene_write_ply writes Brush's form. */
  SPLAT_SCENE_ANTIALIASED = 1u << 0,
} splat_scene_flag_bits;

/* A scene from the host's own arrays (no file): fill a splat_scene with pointers to arrays the
 * host owns, in the layout above, and hand it to splat_renderer_set_scene / _add_object,
 * which only read them during the call (do not pass it to splat_scene_free unless the arrays
 * are malloc() blocks you want freed). What the renderer requires (and checks, refusing the
 * scene with a message naming the first bad splat):
 *   count >= 1; sh_degree 0..3 and sh_coeffs == (sh_degree + 1)^2; all five arrays non-NULL;
 *   positions and SH finite; scales activated (exp of the trained log scale), finite, >= 0;
 *   rotations unit quaternions (w, x, y, z), length 1 within 1e-3; opacities activated
 *   (sigmoid of the trained logit), in [0, 1].
 * bounds_min/max, dropped and clamped are not read by the renderer; flags may carry
 * SPLAT_SCENE_ANTIALIASED. For example, degree-0 colours from RGB in [0, 1]:
 *   splat_scene s = {.count = n, .sh_degree = 0, .sh_coeffs = 1, .positions = xyz,
 *                    .scales = scale, .rotations = wxyz, .opacities = alpha, .sh = dc};
 *   dc[3 * i + c] = (rgb[3 * i + c] - 0.5) / SPLAT_SH_C0;
 *   splat_renderer_add_object(renderer, &s, &id); */

/* Loads the scene file at `path` (read into memory, then parsed in one pass with no
 * per-splat allocation, on the calling thread; splat_scene_load_ex2 decodes on several), or
 * the SOG scene in the folder `path` (its meta.json). On success fills *out (free it with
 * splat_scene_free) and returns 0.
 * On failure returns -1, leaves *out zeroed and writes "<path>: <what is wrong>" into err.
 * A file that shrinks while it loads is an error ("truncated while loading").
 * The same as splat_scene_load_ex(path, out, NULL, err, err_size). */
int splat_scene_load(const char *path, splat_scene *out, char *err, size_t err_size);

/* Progress and cancellation of splat_scene_load_ex. Every field may be zero. */
typedef struct splat_load_progress {
  /* Called on the loading thread, in two phases, in order:
   *   "read":   done and total are bytes of the file, reported before each piece of at most
   *             SPLAT_LOAD_READ_PIECE bytes is read and once at the end;
   *   "decode": done and total are splats of the file (dropped ones included), reported every
   *             SPLAT_LOAD_DECODE_EVERY splats from 0 and once at the end.
   * Within a phase `done` never decreases, the first call has done 0 and the last
   * done == total (a load that fails or is cancelled stops wherever it is). `phase` is a
   * string literal. The callback must be quick and must not call the loader; it may set
   * *cancel. */
  void (*fn)(void *user, const char *phase, uint64_t done, uint64_t total);
  void *user;
  /* Nonzero asks the load to stop. Read at every report (after fn returns), so a load stops
   * within one piece of reading or SPLAT_LOAD_DECODE_EVERY splats of decoding. Another thread
   * may set it: the loader only reads this int. NULL: no cancellation. */
  const volatile int *cancel;
} splat_load_progress;

#define SPLAT_LOAD_READ_PIECE ((uint64_t)16 << 20)
#define SPLAT_LOAD_DECODE_EVERY ((uint64_t)1 << 18) /* 262,144: a 1M-splat scene shows 4 steps */
/* splat_scene_load_ex's result when *cancel stopped it: err says "<path>: cancelled". */
#define SPLAT_SCENE_CANCELLED (-2)

/* As splat_scene_load, reporting progress through `progress` (NULL: none) and stopping when
 * its *cancel becomes nonzero. Returns 0; -1 on failure; SPLAT_SCENE_CANCELLED when cancelled.
 * After either failure *out is zeroed and nothing is left allocated. Whether the callback
 * is called, and how often, never changes the scene loaded. */
int splat_scene_load_ex(const char *path, splat_scene *out, const splat_load_progress *progress, char *err,
                        size_t err_size);

/* A host's thread pool, for splat_scene_load_ex2 to run its parallel steps on instead of
 * making threads of its own. The contract of `run`: call task(arg, i) once for every i in
 * [0, count), on any of the host's threads (the calling thread included, in any order, all at
 * once or one after another), and return only when every call has returned. A load calls `run`
 * several times (one parallel step each), always from the thread that called the loader, never
 * from inside a task; tasks do not wait on one another, so a pool that runs them one at a time
 * on the calling thread is correct (only slower). The scene loaded is the same, byte for byte,
 * whatever pool runs it. */
typedef struct splat_load_pool {
  void (*run)(void *user, void (*task)(void *arg, uint32_t index), void *arg, uint32_t count);
  void *user;
} splat_load_pool;

/* Options of splat_scene_load_ex2. A zeroed struct (or NULL) means the defaults. */
typedef struct splat_load_options {
  /* Progress and cancellation, as for splat_scene_load_ex. NULL: none. */
  const splat_load_progress *progress;
  /* Threads that decode. 0: the machine's online cores (sysconf(_SC_NPROCESSORS_ONLN)); 1:
   * splat_scene_load_ex's path, everything on the calling thread, the file read whole and then
   * decoded. Above 1 (or 0 on a machine with more than one core) each format decodes
   * in parallel steps, the threads created and joined within each step (at most 256, and no
   * more than the step has tasks):
   *   - binary 3DGS .ply and .splat: the rows are read in pieces straight into the scene's
   *     arrays, each piece with a buffer of 1 MiB, so no copy of the file is kept;
   *   - ASCII .ply: the body is split into byte ranges at line ends, each range parsed by one
   *     task once the lines before it are counted;
   *   - compressed .ply: ranges of splats (the chunk bounds read where a range needs them);
   *   - .spz version 4: its streams (5 or 6) are decompressed one a task, into a copy of the
   *     quantised data (about 65 bytes a splat at SH degree 3), then ranges of splats are
   *     dequantised; versions 1-3 are one gzip stream, whose inflate is sequential (deflate
   *     does not say where its blocks start), so only their dequantisation is parallel;
   *   - SOG: one task per WebP image (6 or 7: the image count bounds this step, and the SH
   *     labels and centroids are the largest), then ranges of splats;
   *   - a streamed SOG bundle: one task per chunk of the level, each decoded on its thread.
   * The scene loaded, and the message of a load that fails, are the same for every count. */
  uint32_t threads;
  /* A host pool (see above) to run the parallel steps on instead of threads made for them;
   * NULL: none. `threads` (0: the cores) still sizes the split of the work (about four tasks a
   * thread). With a pool, "decode" progress is reported from the task that completes a piece
   * of it, on whichever of the pool's threads runs it, one report at a time, in order (the
   * others wait while the callback runs); the other reports come from the calling thread. */
  const splat_load_pool *pool;
  /* Optional, for drawing a scene while it loads: decoded splats handed over in file order.
   * Called on the thread that called splat_scene_load_ex2: first once the file's header is read,
   * with an empty part (part->count 0, NULL arrays; sh_degree, sh_coeffs and flags already the
   * scene's) and `total` the splats the file declares, so the caller can make room; then with
   * parts, each splats [first, first + part->count) of the scene being loaded, with the indices
   * they will have in *out (splats dropped for non-finite values are left out, so the parts may
   * add up to less than `total`, never more), `first` growing by the previous part's count.
   * A part's arrays may be read only during the call (they move into *out later). The load goes
   * on decoding on other threads while the callback runs, so it may take its time (e.g. wait
   * for an upload); a nonzero return stops the load as a cancel does (SPLAT_SCENE_CANCELLED).
   * After parts, the load may still fail (a truncated file): the return value says whether
   * *out is the scene the parts made. Binary .ply and .splat read on several threads stream
   * in pieces of at most SPLAT_LOAD_DECODE_EVERY splats; every other case hands the whole
   * scene over in one part before returning. With a host pool (below), the parts come from
   * the pool's threads as progress does, one at a time, in order. NULL: no parts. */
  int (*on_part)(void *user, const splat_scene *part, uint32_t first, uint32_t total);
  void *part_user;
  /* The ceiling, in bytes, of what the load may allocate for its output arrays and for what it
   * decodes on the way (.spz streams, SOG images), and of a file it reads whole (.spz, a .sog
   * zip: its size is checked before it is read, and the rest shares what is left); 0: the machine's physical memory (at least
   * 1 GiB), which a scene that fits the machine never meets. A file whose header (splat count,
   * SH degree, image sizes) says it needs more is refused before anything large is allocated,
   * with "<path>: <member>: ... needs <n> MiB (limit <n> MiB: ...)" (bytes below 64 MiB).
   * Whatever the ceiling, the claims of a file are also held to its size before they are
   * believed (docs/formats.md, "Memory"): rows must be in the file (.ply, .splat); a gzip .spz's
   * count within deflate's 1032:1; a .spz stream or zip entry whose stated size is more than 16
   * times its compressed bytes is decompressed once into a small buffer, counting, or has its
   * header read, before anything is allocated for it (zstd has no useful bound); a SOG scene
   * at most 4 splats a byte of its images once its arrays would pass 256 MiB, each image's
   * dimensions within what the count needs (read from the WebP header before decoding),
   * meta.json at most 1 MiB as stated in the zip, before inflating it. */
  uint64_t max_memory;
  /* A streamed (LOD) SOG bundle's level to load: 0 the finest (every chunk of level 0), 1 the next
   * coarser, ... A level the bundle does not have is an error ("level 3 asked for ..., but the
   * bundle has 2 (0 to 1)"). Formats without levels ignore it. Every chunk of the level is decoded
   * once, the chunks in parallel (one a task; progress "decode" as each completes); what they take
   * at once and the scene's arrays are held to max_memory before anything large is allocated. */
  uint32_t lod_level;
  /* The most splats the caller can use (a renderer's per-frame maximum, say); 0: no limit. A file
   * that declares more is refused from its header, before its bulk is read or decoded: "<path>:
   * <n> splats, more than the caller can use (splat_load_options.max_splats <m>)". */
  uint64_t max_splats;
  const void *next; /* reserved for later options; must be NULL */
} splat_load_options;

/* As splat_scene_load_ex, with `options` (NULL: all defaults, so as many threads as cores).
 * Progress is reported on the calling thread (with a host pool: see `pool`), in the same two
 * phases; on the pieces path the data is read while it is decoded, so "read" reports 0 and then
 * the file's size at once, and "decode" reports splats as ranges of at most
 * SPLAT_LOAD_DECODE_EVERY complete, not at every multiple of it. The steps before the splats
 * (.spz streams, SOG images, counting an ASCII file's lines) report nothing; a cancel during
 * them is seen at the first "decode" report after them. A load that fails reports the error the
 * serial order meets first (the first bad stream, image, range or line), so its message does
 * not depend on the thread count or timing. A cancel stops every thread within one 1 MiB read. A file that shrinks while
 * it loads is an error ("truncated while loading"). Returns 0, -1 on failure (also when
 * options->next is not NULL), SPLAT_SCENE_CANCELLED when cancelled; after either failure *out
 * is zeroed and nothing is left allocated. */
int splat_scene_load_ex2(const char *path, splat_scene *out, const splat_load_options *options, char *err,
                         size_t err_size);

/* As splat_scene_load, from `size` bytes at `data` (not kept after the call): any format
 * but a SOG meta.json, whose images are separate files (a bundled .sog is read).
 * `name` is used to pick the format when the content has no PLY magic (".splat"
 * extension, before the .spz magic) and to start error messages; it may be NULL ("<memory>"). */
int splat_scene_load_memory(const void *data, size_t size, const char *name, splat_scene *out,
                            char *err, size_t err_size);

/* Replaces, in place, every byte of s that could steer a terminal with '?': C0 controls (ESC
 * included), DEL, C1 controls (U+0080..U+009F) and bytes that are not UTF-8 (a lone 0x9B is CSI
 * to some terminals); other UTF-8 is kept. Every error message of this library has been through
 * it already; a host prints its own strings with a file name in them (a title, a log line)
 * safely after it. Accepts NULL. */
void splat_scene_printable(char *s);

/* Frees the arrays of a loaded scene and zeroes it. Accepts NULL and a zeroed scene.
 * The five arrays are separate malloc() blocks, so a scene built by hand with
 * malloc/calloc may be freed here too. */
void splat_scene_free(splat_scene *scene);

/* Writes a standard 3DGS .ply (binary little-endian; x y z nx ny nz f_dc_0..2
 * f_rest_* opacity scale_0..2 rot_0..3, all float) holding the raw, pre-activation
 * values: log scale, logit opacity, f_rest channel-major. An opacity of exactly 1
 * or 0 and a scale of 0 are written as finite values that activate back to them.
 * The file is written under a temporary name in the same folder and renamed to `path` once
 * complete, so that a failure (a full disk, a write error) leaves no partial file and the
 * file that was there (if any) untouched; a `path` that is not a regular file (a device, a
 * FIFO, a symbolic link) is written in place.
 * Returns 0, or -1 with "<path>: <what is wrong>" in err (a failed write: "<path>: write
 * failed: <strerror>"). Unprintable bytes in the message (a path's escape sequences) are '?'. */
int splat_scene_write_ply(const char *path, const splat_scene *scene, char *err, size_t err_size);

/* Writes a .spz, version 4 (the 32-byte header, then positions, alphas, colours, scales,
 * rotations and, above SH degree 0, SH as ZSTD streams), quantised as the spz reference library
 * does: positions in 24-bit fixed point with 12 fractional bits (fewer when the scene reaches
 * past +-2048, so that it fits; a position beyond +-8388607 is an error), log scales in steps of
 * 1/16 over [-10, 6), opacity and colour in 8 bits (colour f_dc in steps of 1/38.25 over
 * [-3.33, 3.33]), rotations as the smallest three components in 9 bits and a sign each, SH in
 * [-1, 1] to 5 bits (degree 1) and 4 bits (degrees 2, 3); values outside a range are clamped to
 * it. Axes are converted from the .ply convention to the format's (see above), and
 * SPLAT_SCENE_ANTIALIASED in scene->flags sets the file's antialiased flag.
 * Written as splat_scene_write_ply writes: complete under `path` or not there at all.
 * Returns 0, or -1 with "<path>: <what is wrong>" in err. */
int splat_scene_write_spz(const char *path, const splat_scene *scene, char *err, size_t err_size);

/* ---- level of detail (docs/formats.md, "LOD hierarchy (.lod)") ---------------------------------
 *
 * A tree over a scene's splats whose interior nodes are Gaussians standing for their subtrees, so
 * a renderer can draw a cut of the tree (a node where its projected size is small enough and its
 * parent's is not) instead of every splat, and stream the leaves of a subtree as one range. */

/* A level-of-detail hierarchy over a scene's splats. Nodes 0..leaf_count-1 are the scene's splats
 * (the leaves); nodes leaf_count..node_count-1 are interior, in top-down (breadth-first) order: the
 * root is node leaf_count. Interior node j (index j - leaf_count) has children
 * [first_child, first_child + child_count): all leaves or all interior, and interior children
 * come after their parent. Every subtree's leaves are a contiguous range of the scene. */
typedef struct splat_lod {
  uint32_t leaf_count, node_count;   /* node_count = leaf_count + interior.count */
  uint32_t *first_child;             /* per interior node */
  uint8_t *child_count;              /* per interior node, 1..SPLAT_LOD_MAX_CHILDREN */
  uint32_t *parent;                  /* per node (leaves too); the root's is UINT32_MAX */
  splat_scene interior;              /* the interior nodes' Gaussians, the scene's SH degree */
  /* Per interior node, or NULL: how much is lost when the node stands for its subtree, >= 0 and
   * finite, at least each interior child's (SPLAT_LOD_PAIRS: the merge cost of its children,
   * Runnalls' bound on the Kullback-Leibler divergence plus the SH coefficients' squared
   * distance; docs/lod.md). NULL (SPLAT_LOD_SPLITS, or a host's tree): the renderer cuts it by
   * projected size alone (every error 1). */
  float *error;
} splat_lod;

#define SPLAT_LOD_MAX_CHILDREN 8

/* How splat_lod_build shapes the tree (below). */
/* SPLAT_LOD_DEFAULT's limit: above it the pairs tree's ~2 x count nodes pass what one frame of a
 * current GPU holds (90.85M leaves made 181.7M nodes against an H200's 134M, measured), so larger
 * scenes get SPLAT_LOD_SPLITS (about 1.15 x count) by default. */
#define SPLAT_LOD_PAIRS_DEFAULT_MAX 32000000u

typedef enum splat_lod_method {
  SPLAT_LOD_DEFAULT = 0, /* SPLAT_LOD_PAIRS up to SPLAT_LOD_PAIRS_DEFAULT_MAX splats, SPLITS above */
  SPLAT_LOD_SPLITS = 1,  /* top-down median splits of space, about 7 leaves a node */
  SPLAT_LOD_PAIRS = 2,   /* bottom-up merges of nearest neighbours, cheapest first, 2 to 4 a node */
} splat_lod_method;

/* Options of splat_lod_build. A zeroed struct (or NULL) means the defaults. */
typedef struct splat_lod_options {
  uint32_t threads; /* 0: the machine's online cores; 1: everything on the calling thread */
  void *next;       /* reserved for later options; must be NULL */
  splat_lod_method method;
} splat_lod_options;

/* Builds the hierarchy of scene `s` into *out (free it with splat_lod_free).
 *
 * SPLAT_LOD_PAIRS (the default): bottom-up in generations, each a greedy matching of nearest
 * neighbours (8 a node, a k-d tree) cheapest first until half the nodes are paired (those whose
 * candidates were all taken paired with their k-d neighbours), each pair merged into a node, the
 * pairs and the nodes left over the next generation, until at most 8 remain under the root; a leaf
 * paired with an interior node is wrapped in a one-child node of its own values. The cost of a
 * pair: Runnalls' bound on the Kullback-Leibler divergence from the two-Gaussian mixture to the
 * moment-matched Gaussian, (log det S - pa log det Sa - pb log det Sb) / 2 (weights as the merge's
 * below, every covariance plus (0.05 x the pair's largest scale)^2 on its diagonal), plus the
 * squared distance of the SH coefficients; each node's error (out->error) is its pair's cost, at
 * least its children's. About as many interior nodes as leaves, ~log2(count) levels; the leaves
 * reordered depth first (every subtree's leaves contiguous). Deterministic: the same for every
 * thread count. At most UINT32_MAX / 4 splats.
 *
 * SPLAT_LOD_SPLITS: a recursive median split, out->error NULL. A range of at most 8 splats is one node whose children are
 * those leaves. A larger range of m splats is split into k parts, k the number of subtrees of the
 * next height down it takes (h the least height with 8^h >= m: k = ceil(m / 8^(h-1)), 2..8), by
 * binary splits, each along the longest axis of the bounding box of its part's positions, at index
 * lo + m' * floor(k' / 2) / k' of a part of m' splats to become k' parts: for 8^h splats, three
 * levels of median splits into 8 parts; otherwise fewer, fuller parts, so the nodes above the
 * leaves hold 4 to 8 leaves (about 7 for most counts) and the interior nodes are about a sixth
 * of the leaves. Each part is an interior child; recurse. The split partitions in place (a selection with ties broken by the splat's index), so the result is the
 * same, byte for byte, for every thread count, and REORDERS the scene's splats (all five arrays
 * together; bounds unchanged) so that every subtree's leaves are contiguous: the tree refers to
 * the new order. The reorder is in place: the five arrays keep their addresses and stay the
 * caller's (they may be slices of one block the host owns; nothing of the scene is freed or
 * replaced), the temporary it needs is the library's own. On failure the scene's content is unchanged, though its order may not be.
 *
 * The merge of an interior node's children into its Gaussian, bottom-up (an interior node's
 * children are merged from their own merged Gaussians), in double: Kerbl et al., "A Hierarchical
 * 3D Gaussian Representation for Real-Time Rendering of Very Large Datasets" (SIGGRAPH 2024),
 * Sec. 4.1. Child i has weight w_i = alpha_i A_i, alpha_i its (activated) opacity and
 * A_i = pi s_a s_b its surface (s_a, s_b its two largest scales);
 *   mean       mu = sum w_i mu_i / W,  W = sum w_i
 *   covariance Sigma = sum w_i (Sigma_i + (mu_i - mu)(mu_i - mu)^T) / W,  Sigma_i = R_i S_i^2 R_i^T
 *   rotation and scales from Sigma's eigen-decomposition (3x3 symmetric Jacobi): scales the
 *              square roots of the eigenvalues, largest first, at least 1e-9 (and at most
 *              FLT_MAX), the eigenvectors as a proper rotation (det +1), a unit quaternion
 *              (w, x, y, z) with w >= 0
 *   SH         sum w_i sh_i / W
 *   opacity    min(1, W / A), A = pi s_a s_b of the merged scales: the coverage (opacity times
 *              surface) of the children is kept.
 * When W is 0 (every child transparent, or flat in two axes) the children weigh the same and the
 * opacity is the largest child's.
 *
 * Parallel: each level of the tree is split, and merged, as tasks on `threads` threads.
 * Requires (refusing the scene otherwise, naming the first bad splat): count >= 1 and
 * node_count < UINT32_MAX, sh_degree 0..3 and sh_coeffs (sh_degree + 1)^2, all five arrays,
 * finite positions. Returns 0, or -1 with "splat_lod_build: <what is wrong>" in err and *out
 * zeroed (options->next not NULL, out of memory). */
int splat_lod_build(splat_scene *s, const splat_lod_options *o, splat_lod *out, char *err, size_t err_size);

/* Writes `lod` to `path` (by convention the scene's path with ".lod" added: scene.spz.lod), the
 * layout of docs/formats.md, "LOD hierarchy (.lod)": SH as IEEE halves (rounded to nearest even,
 * clamped to +-65504), everything else as it is. Written as splat_scene_write_ply writes:
 * complete under `path` or not there at all. Returns 0, or -1 with "<path>: <what is wrong>". */
int splat_lod_write(const char *path, const splat_lod *lod, char *err, size_t err_size);

/* Reads the hierarchy at `path` for the scene `leaves` (only its count and SH degree are read:
 * the file's must match), into *out (free it with splat_lod_free); the parents are rebuilt. The
 * file is checked as every input is: its header (magic, version, sizes, counts) against its
 * exact size before anything is allocated, the memory budget (max_memory, as
 * splat_load_options.max_memory: 0 is the machine's memory; the file and the arrays count), the
 * CRC, the topology (every interior node has 1..8 children, all leaves or all interior, interior
 * children after their parent, in bounds; every node but the root has exactly one parent; every
 * subtree's leaves contiguous) and the values (finite, scales >= 0, opacities in [0, 1], rotations
 * of length 1 within 1e-3, renormalised). Returns 0, or -1 with one line "<path>: <what is
 * wrong>" (naming the first offending node) in err and *out zeroed. */
int splat_lod_load(const char *path, const splat_scene *leaves, uint64_t max_memory, splat_lod *out, char *err,
                   size_t err_size);

/* Frees what a build or load allocated and zeroes *lod. Accepts NULL and a zeroed one. */
void splat_lod_free(splat_lod *lod);

/* Whether `lod` is a tree the renderer and the .lod file can take, for `leaves` when not NULL: the
 * checks splat_lod_load makes of a file (counts; topology: every interior node 1..8 children, all
 * leaves or all interior (after it), a node of one child only over a leaf, every node but the root
 * one parent, as lod->parent says when it is not NULL; every subtree's leaves contiguous; values:
 * finite positions, scales >= 0, opacities in [0, 1], unit rotations within 1e-3, finite SH,
 * errors finite and >= 0), and with `leaves` its count, SH degree and that the tree was built
 * over these leaves in this order: up to 256 nodes over leaves, spread over the tree, must sit at
 * their leaves' merged mean (within 3 x the node's largest scale plus 1e-4 of the scene's extent,
 * so a scene written with quantised positions, .spz, still matches), at most a quarter of them
 * off. splat_lod_write, splat_lod_load and the renderer's add_lod_object call it. Returns 0, or -1
 * with one line naming the first problem (and node) in err. */
int splat_lod_validate(const splat_lod *lod, const splat_scene *leaves, char *err, size_t err_size);

/* ---- cameras.json (scene_cameras.c) -------------------------------------------------------
 *
 * The cameras a 3DGS training run writes beside its scene (camera_to_JSON in the reference's
 * utils/camera_utils.py): each image's pose and intrinsics. A renderer host turns an entry into
 * its camera with splat_camera_from_desc (splat_camera.h). */

#define SPLAT_CAMERA_NAME_MAX 256

/* One entry of a 3DGS cameras.json. */
typedef struct splat_camera_desc {
  int64_t id;
  char name[SPLAT_CAMERA_NAME_MAX];  /* img_name, NUL-terminated UTF-8 */
  uint32_t width, height;
  float position[3];                 /* camera centre, world */
  float rotation[3][3];              /* camera-to-world, rows as in the file */
  float fx, fy;                      /* pixels, at width x height */
} splat_camera_desc;

/* Reads the cameras.json at `path`: a JSON array of objects with id (integer), img_name (string,
 * less than SPLAT_CAMERA_NAME_MAX bytes), width, height (whole numbers of pixels, 1..65536),
 * position [3], rotation [[3],[3],[3]] (a rotation matrix: |R^T R - I| <= 1e-2 per element,
 * det > 0), fx, fy (positive); every number finite as a float (1e999 and 1e39 are refused);
 * unknown members are ignored, a known one given twice is an error. Strict JSON (RFC 8259; a
 * leading UTF-8 BOM is skipped; no "\u0000" in strings). Held to its size before it is believed:
 * a regular file only (a FIFO or a device is refused without blocking), at most 256 MiB (a larger
 * one is refused before it is read), nesting at most 64 deep, at most 1,048,576 JSON values (a
 * camera has 25; this bounds cJSON's tree to 64 MiB). Read with cJSON, after a check of the text
 * that holds it to strict JSON (cJSON accepts more) and words the syntax errors. On success *out
 * is a malloc'd array (free with splat_cameras_free) of *count entries (an empty array gives
 * NULL, 0) and 0 is returned. On failure returns -1, *out = NULL, *count = 0 and `err` (if not
 * NULL) holds one line "<file>:<line>:<col>: camera <i>: field \"<name>\": <what>" (the camera and
 * field parts where they apply; control characters and escape sequences shown as '?'). */
int splat_cameras_load(const char *path, splat_camera_desc **out, uint32_t *count, char *err, size_t err_size);
/* The same on `size` bytes at `text` (not NUL-terminated; not kept); `name` starts the messages
 * (NULL: "<memory>"). */
int splat_cameras_parse(const char *name, const char *text, size_t size, splat_camera_desc **out, uint32_t *count,
                        char *err, size_t err_size);
/* Accepts NULL. */
void splat_cameras_free(splat_camera_desc *cams);

#ifdef __cplusplus
}
#endif

#endif /* SPLAT_SCENE_H */
