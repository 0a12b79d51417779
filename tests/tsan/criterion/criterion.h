/* A stand-in for <criterion/criterion.h> in ThreadSanitizer builds (RIG_TSAN).
 * Criterion cannot start under TSan: its runner's inheritable arena fails to map
 * ("Could not initialize inheritable arena", Snaipe/Criterion#274). Unit tests
 * listed in tests/CMakeLists.txt's RIG_TSAN_UNIT_TESTS are compiled against this
 * header instead: each Test() registers itself and runs in this one process, in
 * file order; the first failed assertion prints its place and exits 1, and TSan
 * fails the run with its own exit code on any report. Only the assertions those
 * tests use are here: Test, cr_assert_null, cr_assert_not_null, cr_assert_eq,
 * cr_assert_leq, each with an optional literal message. */
#ifndef RIG_TSAN_CRITERION_H
#define RIG_TSAN_CRITERION_H

#include <stdio.h>
#include <stdlib.h>

struct rig_tsan_test {
	const char *name;
	void (*fn)(void);
};

#define RIG_TSAN_MAX_TESTS 64
/* One registry per test executable: this header is included by one source. */
static struct rig_tsan_test rig_tsan_tests[RIG_TSAN_MAX_TESTS];
static int rig_tsan_n_tests;

static inline void rig_tsan_register(const char *name, void (*fn)(void))
{
	if (rig_tsan_n_tests == RIG_TSAN_MAX_TESTS) {
		fprintf(stderr, "criterion stand-in: more than %d tests\n", RIG_TSAN_MAX_TESTS);
		exit(2);
	}
	rig_tsan_tests[rig_tsan_n_tests++] = (struct rig_tsan_test){name, fn};
}

#define Test(suite, name)                                                                          \
	static void rig_tsan_test_##suite##_##name(void);                                          \
	__attribute__((constructor)) static void rig_tsan_reg_##suite##_##name(void)               \
	{                                                                                          \
		rig_tsan_register(#suite "::" #name, rig_tsan_test_##suite##_##name);              \
	}                                                                                          \
	static void rig_tsan_test_##suite##_##name(void)

#define rig_tsan_check(cond, text, ...)                                                            \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: assertion failed: %s " __VA_ARGS__ "\n", __FILE__, \
				__LINE__, text);                                                   \
			exit(1);                                                                   \
		}                                                                                  \
	} while (0)

#define cr_assert_null(p, ...) rig_tsan_check((p) == NULL, #p " is NULL", __VA_ARGS__)
#define cr_assert_not_null(p, ...) rig_tsan_check((p) != NULL, #p " is not NULL", __VA_ARGS__)
#define cr_assert_eq(a, b, ...) rig_tsan_check((a) == (b), #a " == " #b, __VA_ARGS__)
#define cr_assert_leq(a, b, ...) rig_tsan_check((a) <= (b), #a " <= " #b, __VA_ARGS__)

int main(void)
{
	for (int i = 0; i < rig_tsan_n_tests; i++) {
		rig_tsan_tests[i].fn();
		printf("[PASS] %s\n", rig_tsan_tests[i].name);
	}
	printf("%d tests passed\n", rig_tsan_n_tests);
	return 0;
}

#endif
