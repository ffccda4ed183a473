/* tfidf.c: TF*IDF text indexing over ranks, the application NoCMsg (Zimmer and Mueller, CCGrid 2014) used beside the
 * NAS kernels: documents are split over the ranks, terms are owned by ranks by hash, and the ranks exchange
 * serialised term maps of variable length.
 *
 *     tfidf CLASS     S: 2048 documents, vocabulary 8192;  W: 16384, 32768;  A: 131072, 131072
 *     tfidf weak N    N documents per rank, vocabulary 32768
 *
 * The corpus is synthetic and deterministic: document d (50 to 150 words) is drawn by splitmix64 seeded from d, each
 * word from a Zipf distribution over the vocabulary (word of popularity rank k has weight floor(2^32 / (k + 1)),
 * drawn with integer arithmetic only, so every machine draws the same words); word number w is spelt as w + 1 in
 * bijective base 20 with one two-letter syllable per digit ("ba", "ke", ...). The documents, as text (words separated
 * by spaces), are made before timing; rank r holds documents [D r / p, D (r+1) / p).
 *
 * Timed, on every rank:
 *   1. tokenise its documents and count: a term -> (documents, occurrences) map for the rank, and each document's
 *      list of (term, count);
 *   2. serialise the map for the terms' owners (owner = FNV-1a hash of the term mod p): records of
 *      [length byte][the term's bytes][documents: 4 bytes][occurrences: 4 bytes]; MPI_Alltoall exchanges the byte
 *      counts, MPI_Alltoallv the bytes;
 *   3. each owner merges what it received into the global document frequency df of its terms and answers every
 *      sender with the df of each term it sent, in the order sent (MPI_Alltoallv of 4-byte values);
 *   4. every rank weighs its documents: w(t, d) = (count(t, d) / length(d)) log(D / df(t)); MPI_Allreduce sums the
 *      weights into one checksum.
 * Verified (after timing): the sum of all df (over owners) equals the number of distinct (document, term) pairs
 * (counted on the documents' side), and the occurrences of all terms equal the number of words of all documents,
 * always; for up to 16384 documents rank 0 also recomputes everything serially (distinct terms, the df sum, the
 * words and the checksum, within 1e-9 relative).
 *
 * Ranks: any number. */
#include <math.h>

#include "npbrun.h"

#define CORPUS_SEED UINT64_C(0x4e6f434d73672014)
#define MIN_WORDS 50
#define MAX_WORDS 150
#define SERIAL_CHECK_DOCS 16384
#define CHECKSUM_EPS 1e-9

struct tfidf_class {
    char cls;
    long docs, vocabulary;
};

static const struct tfidf_class classes[] = {
    {'S', 2048, 8192},
    {'W', 16384, 32768},
    {'A', 131072, 131072},
};

/* ---- The corpus ---- */

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static const char syllables[20][3] = {"ba", "ke", "di", "mo", "lu", "sa", "te", "ri", "no", "gu",
                                      "pa", "fe", "zi", "ho", "ju", "ca", "ve", "wi", "yo", "xu"};

/* Spells word number w (w + 1 in bijective base 20, one syllable per digit); returns the length. */
static int spell(long w, char *out)
{
    char digits[16];
    int n = 0;
    for (long x = w + 1; x > 0; x = (x - 1) / 20)
        digits[n++] = (char)((x - 1) % 20);
    for (int i = 0; i < n; i++)
        memcpy(out + 2 * i, syllables[(int)digits[n - 1 - i]], 2);
    return 2 * n;
}

struct corpus {
    long docs, vocabulary;
    uint64_t *cdf;       /* Zipf: cumulative integer weights by popularity rank */
    long max_doc_bytes;  /* the longest a document can be */
};

static void corpus_init(struct corpus *c, long docs, long vocabulary)
{
    c->docs = docs;
    c->vocabulary = vocabulary;
    c->cdf = npb_alloc((size_t)vocabulary * sizeof(uint64_t), "zipf");
    uint64_t sum = 0;
    for (long k = 0; k < vocabulary; k++) {
        sum += (UINT64_C(1) << 32) / (uint64_t)(k + 1);
        c->cdf[k] = sum;
    }
    char word[32];
    c->max_doc_bytes = MAX_WORDS * (spell(vocabulary - 1, word) + 1); /* the last word is the longest */
}

/* Writes document d as text into out (room for c->max_doc_bytes); returns its length in bytes and sets *words. */
static long make_document(const struct corpus *c, long d, char *out, int *words)
{
    uint64_t s = CORPUS_SEED ^ ((uint64_t)d * UINT64_C(0xd1342543de82ef95));
    int n = MIN_WORDS + (int)(splitmix(&s) % (MAX_WORDS - MIN_WORDS + 1));
    uint64_t total = c->cdf[c->vocabulary - 1];
    long len = 0;
    for (int i = 0; i < n; i++) {
        uint64_t u = splitmix(&s) % total;
        long lo = 0, hi = c->vocabulary - 1; /* the first rank whose cdf exceeds u */
        while (lo < hi) {
            long mid = (lo + hi) / 2;
            if (c->cdf[mid] > u)
                hi = mid;
            else
                lo = mid + 1;
        }
        /* popularity rank -> word number: an odd multiplier scatters the popular words over the spellings */
        long w = (long)(((uint64_t)lo * 7919u) % (uint64_t)c->vocabulary);
        if (i)
            out[len++] = ' ';
        len += spell(w, out + len);
    }
    *words = n;
    return len;
}

/* ---- A map from terms to numbers ---- */

static uint64_t fnv1a(const char *s, int len)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (int i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

/* Terms get numbers 0, 1, ... in the order they are added; per-term payload arrays grow with them. */
struct terms {
    long n, cap;           /* terms, and room for them */
    long slots;            /* hash slots (power of two, at least 2 n) */
    int32_t *slot;         /* term number or -1 */
    uint64_t *hash;
    long *text;            /* offset of the term's bytes in arena */
    unsigned char *len;
    char *arena;
    long arena_len, arena_cap;
    uint32_t *docs, *occurrences; /* payload: documents containing the term, and its occurrences */
    long *last_doc, *pair;        /* while counting: last document seen, and the pair there */
};

static void terms_init(struct terms *t)
{
    memset(t, 0, sizeof *t);
    t->slots = 1024;
    t->slot = npb_alloc((size_t)t->slots * sizeof(int32_t), "term slots");
    for (long i = 0; i < t->slots; i++)
        t->slot[i] = -1;
}

static void terms_free(struct terms *t)
{
    free(t->slot);
    free(t->hash);
    free(t->text);
    free(t->len);
    free(t->arena);
    free(t->docs);
    free(t->occurrences);
    free(t->last_doc);
    free(t->pair);
}

static void *grow(void *p, size_t bytes)
{
    void *q = realloc(p, bytes);
    if (!q)
        npb_die("out of memory: %zu bytes for terms", bytes);
    return q;
}

/* The number of term s (adding it, with zero payload, if new). */
static long terms_get(struct terms *t, const char *s, int len, uint64_t h)
{
    long mask = t->slots - 1;
    for (long i = (long)(h & (uint64_t)mask);; i = (i + 1) & mask) {
        long k = t->slot[i];
        if (k < 0)
            break;
        if (t->hash[k] == h && t->len[k] == len && memcmp(t->arena + t->text[k], s, (size_t)len) == 0)
            return k;
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1024;
        size_t c = (size_t)t->cap;
        t->hash = grow(t->hash, c * sizeof *t->hash);
        t->text = grow(t->text, c * sizeof *t->text);
        t->len = grow(t->len, c * sizeof *t->len);
        t->docs = grow(t->docs, c * sizeof *t->docs);
        t->occurrences = grow(t->occurrences, c * sizeof *t->occurrences);
        t->last_doc = grow(t->last_doc, c * sizeof *t->last_doc);
        t->pair = grow(t->pair, c * sizeof *t->pair);
    }
    if (t->arena_len + len > t->arena_cap) {
        t->arena_cap = 2 * (t->arena_cap + len);
        t->arena = grow(t->arena, (size_t)t->arena_cap);
    }
    long k = t->n++;
    memcpy(t->arena + t->arena_len, s, (size_t)len);
    t->text[k] = t->arena_len;
    t->arena_len += len;
    t->len[k] = (unsigned char)len;
    t->hash[k] = h;
    t->docs[k] = t->occurrences[k] = 0;
    t->last_doc[k] = -1;
    if (2 * t->n > t->slots) { /* rehash into twice the slots */
        free(t->slot);
        t->slots *= 2;
        t->slot = npb_alloc((size_t)t->slots * sizeof(int32_t), "term slots");
        for (long i = 0; i < t->slots; i++)
            t->slot[i] = -1;
        mask = t->slots - 1;
        for (long j = 0; j < t->n; j++) {
            long i = (long)(t->hash[j] & (uint64_t)mask);
            while (t->slot[i] >= 0)
                i = (i + 1) & mask;
            t->slot[i] = (int32_t)j;
        }
    } else {
        long i = (long)(h & (uint64_t)mask);
        while (t->slot[i] >= 0)
            i = (i + 1) & mask;
        t->slot[i] = (int32_t)k;
    }
    return k;
}

/* Documents as (term, count) pairs. */
struct pairs {
    long n, cap;
    int32_t *term;
    uint32_t *count;
};

static void pairs_add(struct pairs *p, long term)
{
    if (p->n == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 4096;
        p->term = grow(p->term, (size_t)p->cap * sizeof *p->term);
        p->count = grow(p->count, (size_t)p->cap * sizeof *p->count);
    }
    p->term[p->n] = (int32_t)term;
    p->count[p->n] = 1;
    p->n++;
}

/* Tokenises document number d (text[0..len)) into t and its pairs into p. */
static void count_document(struct terms *t, struct pairs *p, long d, const char *text, long len)
{
    long i = 0;
    while (i < len) {
        long j = i;
        while (j < len && text[j] != ' ')
            j++;
        int wl = (int)(j - i);
        long k = terms_get(t, text + i, wl, fnv1a(text + i, wl));
        if (t->last_doc[k] != d) {
            t->last_doc[k] = d;
            t->pair[k] = p->n;
            t->docs[k]++;
            pairs_add(p, k);
        } else {
            p->count[t->pair[k]]++;
        }
        t->occurrences[k]++;
        i = j + 1;
    }
}

/* ---- The serial recomputation (rank 0, small corpora) ---- */

struct totals {
    long long terms, df_sum, words, pairs;
    double checksum;
};

static void serial_totals(const struct corpus *c, struct totals *out)
{
    char *text = npb_alloc((size_t)c->max_doc_bytes, "document");
    struct terms t;
    struct pairs p = {0, 0, NULL, NULL};
    terms_init(&t);
    memset(out, 0, sizeof *out);
    long *length = npb_alloc((size_t)c->docs * sizeof(long), "lengths");
    long *first_pair = npb_alloc((size_t)(c->docs + 1) * sizeof(long), "pairs");
    for (long d = 0; d < c->docs; d++) {
        int words;
        long len = make_document(c, d, text, &words);
        first_pair[d] = p.n;
        count_document(&t, &p, d, text, len);
        length[d] = words;
        out->words += words;
    }
    first_pair[c->docs] = p.n;
    out->terms = t.n;
    out->pairs = p.n;
    for (long k = 0; k < t.n; k++)
        out->df_sum += t.docs[k];
    for (long d = 0; d < c->docs; d++)
        for (long q = first_pair[d]; q < first_pair[d + 1]; q++)
            out->checksum += (double)p.count[q] / (double)length[d] *
                             log((double)c->docs / (double)t.docs[p.term[q]]);
    terms_free(&t);
    free(p.term);
    free(p.count);
    free(length);
    free(first_pair);
    free(text);
}

/* ---- Records ---- */

static void put_u32(unsigned char *b, uint32_t v) { memcpy(b, &v, 4); }
static uint32_t get_u32(const unsigned char *b)
{
    uint32_t v;
    memcpy(&v, b, 4);
    return v;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct npb_args args;
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (!npb_parse_args(argc, argv, &args))
        return npb_usage("usage: tfidf CLASS (S, W or A) | tfidf weak DOCUMENTS_PER_RANK");
    struct tfidf_class k = {'w', 0, 32768};
    if (args.cls == 'w') {
        if (args.weak_n * p > 16L * 1024 * 1024)
            return npb_usage("tfidf: weak: at most 2^24 documents in all");
        k.docs = args.weak_n * p;
    } else {
        for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
            if (classes[i].cls == args.cls)
                k = classes[i];
    }
    struct corpus corpus;
    corpus_init(&corpus, k.docs, k.vocabulary);

    /* My documents, as text. */
    long d0 = k.docs * me / p, nd = k.docs * (me + 1) / p - d0;
    long *doc_start = npb_alloc((size_t)(nd + 1) * sizeof(long), "documents");
    long *doc_words = npb_alloc((size_t)(nd ? nd : 1) * sizeof(long), "documents");
    char *text = npb_alloc((size_t)(nd ? nd : 1) * (size_t)corpus.max_doc_bytes, "text");
    doc_start[0] = 0;
    for (long d = 0; d < nd; d++) {
        int words;
        doc_start[d + 1] = doc_start[d] + make_document(&corpus, d0 + d, text + doc_start[d], &words);
        doc_words[d] = words;
    }

    int *sendcounts = npb_alloc((size_t)p * sizeof(int), "counts");
    int *sdispls = npb_alloc((size_t)p * sizeof(int), "counts");
    int *recvcounts = npb_alloc((size_t)p * sizeof(int), "counts");
    int *rdispls = npb_alloc((size_t)p * sizeof(int), "counts");
    int *sent_records = npb_alloc((size_t)p * sizeof(int), "counts");
    int *sent_rdispls = npb_alloc((size_t)p * sizeof(int), "counts");
    int *recv_records = npb_alloc((size_t)p * sizeof(int), "counts");
    int *recv_rdispls = npb_alloc((size_t)p * sizeof(int), "counts");
    struct terms mine, owned;
    struct pairs pairs = {0, 0, NULL, NULL};
    terms_init(&mine);
    terms_init(&owned);
    long *first_pair = npb_alloc((size_t)(nd + 1) * sizeof(long), "pairs");
    int misrouted = 0;
    double checksum = 0.0;

    struct npb_timer timer;
    npb_timer_start(&timer);
    /* 1. Count. */
    for (long d = 0; d < nd; d++) {
        first_pair[d] = pairs.n;
        count_document(&mine, &pairs, d, text + doc_start[d], doc_start[d + 1] - doc_start[d]);
    }
    first_pair[nd] = pairs.n;

    /* 2. Serialise for the owners, in the order of my term numbers; order[] lists my terms by owner. */
    memset(sendcounts, 0, (size_t)p * sizeof(int));
    memset(sent_records, 0, (size_t)p * sizeof(int));
    int *owner = npb_alloc((size_t)(mine.n ? mine.n : 1) * sizeof(int), "owners");
    for (long t = 0; t < mine.n; t++) {
        owner[t] = (int)(mine.hash[t] % (uint64_t)p);
        sendcounts[owner[t]] += 1 + mine.len[t] + 8;
        sent_records[owner[t]]++;
    }
    long out_bytes = 0;
    for (int j = 0; j < p; j++) {
        sdispls[j] = (int)out_bytes;
        out_bytes += sendcounts[j];
        sent_rdispls[j] = j ? sent_rdispls[j - 1] + sent_records[j - 1] : 0;
    }
    unsigned char *out = npb_alloc((size_t)out_bytes, "records");
    long *order = npb_alloc((size_t)(mine.n ? mine.n : 1) * sizeof(long), "record order");
    int *fill = npb_alloc((size_t)p * sizeof(int), "fill");
    int *fill_rec = npb_alloc((size_t)p * sizeof(int), "fill");
    memcpy(fill, sdispls, (size_t)p * sizeof(int));
    memcpy(fill_rec, sent_rdispls, (size_t)p * sizeof(int));
    for (long t = 0; t < mine.n; t++) {
        unsigned char *r = out + fill[owner[t]];
        r[0] = mine.len[t];
        memcpy(r + 1, mine.arena + mine.text[t], mine.len[t]);
        put_u32(r + 1 + mine.len[t], mine.docs[t]);
        put_u32(r + 5 + mine.len[t], mine.occurrences[t]);
        fill[owner[t]] += 1 + mine.len[t] + 8;
        order[fill_rec[owner[t]]++] = t;
    }
    NPB_COMM(MPI_Alltoall(sendcounts, 1, MPI_INT, recvcounts, 1, MPI_INT, MPI_COMM_WORLD));
    long in_bytes = 0;
    for (int j = 0; j < p; j++) {
        rdispls[j] = (int)in_bytes;
        in_bytes += recvcounts[j];
    }
    unsigned char *in = npb_alloc((size_t)in_bytes, "records");
    NPB_COMM(MPI_Alltoallv(out, sendcounts, sdispls, MPI_BYTE, in, recvcounts, rdispls, MPI_BYTE, MPI_COMM_WORLD));

    /* 3. Merge, remembering which owned term each record was, then answer with the df of each. */
    long nrecords = 0;
    for (int j = 0; j < p; j++) {
        recv_records[j] = 0;
        for (long at = rdispls[j]; at < rdispls[j] + recvcounts[j]; at += 1 + in[at] + 8)
            recv_records[j]++;
        recv_rdispls[j] = (int)nrecords;
        nrecords += recv_records[j];
    }
    long *record_term = npb_alloc((size_t)(nrecords ? nrecords : 1) * sizeof(long), "records");
    long r = 0;
    for (long at = 0; at < in_bytes; at += 1 + in[at] + 8) {
        int len = in[at];
        const char *s = (const char *)in + at + 1;
        uint64_t h = fnv1a(s, len);
        if (h % (uint64_t)p != (uint64_t)me)
            misrouted++;
        long t = terms_get(&owned, s, len, h);
        owned.docs[t] += get_u32(in + at + 1 + len);
        owned.occurrences[t] += get_u32(in + at + 5 + len);
        record_term[r++] = t;
    }
    uint32_t *answer = npb_alloc((size_t)(nrecords ? nrecords : 1) * sizeof(uint32_t), "df answers");
    for (long i = 0; i < nrecords; i++)
        answer[i] = owned.docs[record_term[i]];
    uint32_t *df_in = npb_alloc((size_t)(mine.n ? mine.n : 1) * sizeof(uint32_t), "df");
    NPB_COMM(MPI_Alltoallv(answer, recv_records, recv_rdispls, MPI_UNSIGNED, df_in, sent_records, sent_rdispls,
                           MPI_UNSIGNED, MPI_COMM_WORLD));

    /* 4. Weigh my documents. */
    double *idf = npb_alloc((size_t)(mine.n ? mine.n : 1) * sizeof(double), "idf");
    for (long i = 0; i < mine.n; i++)
        idf[order[i]] = log((double)k.docs / (double)df_in[i]);
    double local = 0.0;
    for (long d = 0; d < nd; d++)
        for (long q = first_pair[d]; q < first_pair[d + 1]; q++)
            local += (double)pairs.count[q] / (double)doc_words[d] * idf[pairs.term[q]];
    NPB_COMM(MPI_Allreduce(&local, &checksum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    npb_timer_stop(&timer);

    /* Rank 0's serial recomputation, for small corpora. The others wait for it in a barrier: waiting in the
     * collectives below instead would leave their messages to the busy rank 0 queued in the network of a simulated
     * chip, which the simulator then steps cycle by cycle (many times slower). */
    struct totals serial;
    int check_serially = k.docs <= SERIAL_CHECK_DOCS;
    if (check_serially) {
        if (me == 0)
            serial_totals(&corpus, &serial);
        MPI_Barrier(MPI_COMM_WORLD);
    }

    /* Verification: both ways of counting (document, term) pairs and words; the serial recomputation. */
    long long mine_totals[5] = {owned.n, 0, 0, pairs.n, 0}, all[5];
    for (long t = 0; t < owned.n; t++) {
        mine_totals[1] += owned.docs[t];
        mine_totals[2] += owned.occurrences[t];
    }
    for (long d = 0; d < nd; d++)
        mine_totals[4] += doc_words[d];
    MPI_Allreduce(mine_totals, all, 5, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    int misrouted_all;
    MPI_Allreduce(&misrouted, &misrouted_all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int ok = 1;
    char why[160] = "";
    if (misrouted_all) {
        ok = 0;
        snprintf(why, sizeof why, "%d terms reached a rank that does not own them", misrouted_all);
    } else if (all[1] != all[3]) {
        ok = 0;
        snprintf(why, sizeof why, "df sum %lld but %lld distinct (document term) pairs", all[1], all[3]);
    } else if (all[2] != all[4]) {
        ok = 0;
        snprintf(why, sizeof why, "%lld occurrences of terms but %lld words", all[2], all[4]);
    }
    if (me == 0)
        npb_note("tfidf: %ld documents, %lld words, %lld terms, %lld pairs, checksum %.12e\n", k.docs,
                 all[4], all[0], all[3], checksum);
    if (check_serially && me == 0 && ok) {
        double err = fabs(serial.checksum - checksum) / fabs(serial.checksum);
        if (serial.terms != all[0] || serial.df_sum != all[1] || serial.words != all[4] || !(err <= CHECKSUM_EPS)) {
            ok = 0;
            snprintf(why, sizeof why, "serially %lld terms df sum %lld words %lld checksum %.12e", serial.terms,
                     serial.df_sum, serial.words, serial.checksum);
        }
    }
    int status = npb_report("tfidf", args.label, &timer, ok, why);
    terms_free(&mine);
    terms_free(&owned);
    free(pairs.term);
    free(pairs.count);
    void *blocks[] = {corpus.cdf, doc_start, doc_words, text, sendcounts, sdispls, recvcounts, rdispls,
                      sent_records, sent_rdispls, recv_records, recv_rdispls, first_pair, owner, out, order, fill,
                      fill_rec, in, record_term, answer, df_in, idf};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
        free(blocks[i]);
    MPI_Finalize();
    return status;
}
