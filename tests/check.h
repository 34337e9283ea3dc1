/* check.h - the tiny test harness every tests/test_*.c uses.
 *
 * A test file defines functions `static void name(void)` and lists them in
 * main() with RUN(name). CHECK* macros record a failure with file and line
 * and keep going; main returns check_summary(), which prints the closing
 * line "N passed, N failed" (counted per test function) and returns 1 if
 * anything failed. SKIP_ALL("why") exits with 77, which CTest reports as a
 * skip (used when ../shared/assets is absent).
 */
#ifndef BW_TEST_CHECK_H
#define BW_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI /* strict C11 headers do not define it */
#define M_PI 3.14159265358979323846
#endif

static int check_failures_in_test;
static int check_tests_passed;
static int check_tests_failed;

#define CHECK(cond)                                                             \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            check_failures_in_test++;                                           \
        }                                                                       \
    } while (0)

/* |actual - expected| <= tol, and both finite (NaN never passes). */
#define CHECK_NEAR(actual, expected, tol)                                       \
    do {                                                                        \
        double check_a_ = (double)(actual), check_e_ = (double)(expected);      \
        if (!(fabs(check_a_ - check_e_) <= (double)(tol))) {                    \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.9g, expected %.9g (tol %g)\n", \
                    __FILE__, __LINE__, #actual, check_a_, check_e_, (double)(tol)); \
            check_failures_in_test++;                                           \
        }                                                                       \
    } while (0)

#define CHECK_INT(actual, expected)                                             \
    do {                                                                        \
        long long check_a_ = (long long)(actual), check_e_ = (long long)(expected); \
        if (check_a_ != check_e_) {                                             \
            fprintf(stderr, "%s:%d: CHECK_INT failed: %s = %lld, expected %lld\n", \
                    __FILE__, __LINE__, #actual, check_a_, check_e_);           \
            check_failures_in_test++;                                           \
        }                                                                       \
    } while (0)

#define CHECK_STR(actual, expected)                                             \
    do {                                                                        \
        const char *check_a_ = (actual), *check_e_ = (expected);                \
        if (!check_a_ || strcmp(check_a_, check_e_) != 0) {                     \
            fprintf(stderr, "%s:%d: CHECK_STR failed: %s = \"%s\", expected \"%s\"\n", \
                    __FILE__, __LINE__, #actual, check_a_ ? check_a_ : "(null)", check_e_); \
            check_failures_in_test++;                                           \
        }                                                                       \
    } while (0)

/* The substring `needle` occurs in `haystack`. */
#define CHECK_CONTAINS(haystack, needle)                                        \
    do {                                                                        \
        const char *check_h_ = (haystack), *check_n_ = (needle);                \
        if (!check_h_ || !strstr(check_h_, check_n_)) {                         \
            fprintf(stderr, "%s:%d: CHECK_CONTAINS failed: \"%s\" does not contain \"%s\"\n", \
                    __FILE__, __LINE__, check_h_ ? check_h_ : "(null)", check_n_); \
            check_failures_in_test++;                                           \
        }                                                                       \
    } while (0)

#define RUN(test_fn)                                                            \
    do {                                                                        \
        check_failures_in_test = 0;                                             \
        test_fn();                                                              \
        if (check_failures_in_test) {                                           \
            fprintf(stderr, "FAIL %s\n", #test_fn);                             \
            check_tests_failed++;                                               \
        } else {                                                                \
            check_tests_passed++;                                               \
        }                                                                       \
    } while (0)

#define SKIP_ALL(why)                                                           \
    do {                                                                        \
        printf("skipped: %s\n", why);                                           \
        exit(77);                                                               \
    } while (0)

static inline int check_summary(void)
{
    printf("%d passed, %d failed\n", check_tests_passed, check_tests_failed);
    return check_tests_failed ? 1 : 0;
}

/* Path of a shared asset, or NULL (after which a test should SKIP_ALL). */
static inline const char *check_asset(const char *name)
{
    static char path[1024];
    const char *dir = getenv("BW_ASSET_DIR");
#ifdef BW_ASSET_DIR
    if (!dir) dir = BW_ASSET_DIR;
#endif
    if (!dir) return NULL;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fclose(f);
    return path;
}

#endif
