/* replay: runs a fuzz target's LLVMFuzzerTestOneInput once on each file given, or on each
 * file in each folder given, without libFuzzer: the committed seeds and crash inputs are
 * replayed by ctest in every build (under the sanitizers in the sanitizer build). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned replayed;

static int replay_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return -1;
  }
  size_t cap = 4096, size = 0, n;
  uint8_t *data = malloc(cap);
  while (data && (n = fread(data + size, 1, cap - size, f)) > 0) {
    size += n;
    if (size == cap) {
      uint8_t *d = realloc(data, cap *= 2);
      if (!d) free(data);
      data = d;
    }
  }
  int bad = ferror(f);
  fclose(f);
  if (!data || bad) {
    fprintf(stderr, "replay: cannot read %s\n", path);
    free(data);
    return -1;
  }
  fprintf(stderr, "replay: %s (%zu bytes)\n", path, size);
  LLVMFuzzerTestOneInput(data, size);
  free(data);
  replayed++;
  return 0;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The files of a folder in name order, so a run is repeatable. */
static int replay_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "replay: cannot open folder %s\n", dir);
    return -1;
  }
  char **names = NULL;
  size_t n = 0;
  int rc = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.') continue;
    char **nn = realloc(names, (n + 1) * sizeof *names);
    if (!nn || !(nn[n] = malloc(strlen(dir) + strlen(e->d_name) + 2))) {
      names = nn ? nn : names;
      rc = -1;
      break;
    }
    names = nn;
    sprintf(names[n++], "%s/%s", dir, e->d_name);
  }
  closedir(d);
  if (rc == 0) qsort(names, n, sizeof *names, cmp_names);
  for (size_t i = 0; i < n; i++) {
    if (rc == 0) rc = replay_file(names[i]);
    free(names[i]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE|FOLDER...\n", argv[0]);
    return 2;
  }
  for (int i = 1; i < argc; i++) {
    struct stat st;
    int rc = stat(argv[i], &st) != 0 ? (fprintf(stderr, "replay: no such file %s\n", argv[i]), -1)
             : S_ISDIR(st.st_mode)    ? replay_dir(argv[i])
                                      : replay_file(argv[i]);
    if (rc != 0) return 1;
  }
  printf("replay: %u inputs, all passed the checks\n", replayed);
  return replayed > 0 ? 0 : 1;
}
