/* readfile.c - read the file named by argv[1]; print byte count, line
 * count, byte-sum checksum and the first line. */
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE\n", argc > 0 && argv[0] ? argv[0] : "readfile");
        return 2;
    }

    FILE *f = fopen(argv[1], "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", argv[1]);
        return 1;
    }

    char first[256];
    size_t first_len = 0;
    int in_first = 1;
    unsigned long bytes = 0, lines = 0, sum = 0;
    unsigned char chunk[128];
    size_t n;

    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        for (size_t i = 0; i < n; i++) {
            unsigned char c = chunk[i];
            bytes++;
            sum += c;
            if (c == '\n') {
                lines++;
                in_first = 0;
            } else if (in_first && first_len < sizeof first - 1) {
                first[first_len++] = (char)c;
            }
        }
    }
    first[first_len] = '\0';
    int err = ferror(f);
    fclose(f);
    if (err) {
        fprintf(stderr, "read error on %s\n", argv[1]);
        return 1;
    }

    printf("bytes %lu\n", bytes);
    printf("lines %lu\n", lines);
    printf("sum %lu\n", sum);
    printf("first line: %s\n", first);
    return 0;
}
