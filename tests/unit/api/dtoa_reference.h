/* The previous double printer (Ryu), the oracle of test_dtoa.c and bench_dtoa:
 * see dtoa_reference.c. Test and benchmark code only. */
#ifndef RIG_TEST_DTOA_REFERENCE_H
#define RIG_TEST_DTOA_REFERENCE_H

/* Writes finite v as rig_format_double did before Schubfach into out (≥ 32
 * bytes); returns its length. */
int rig_test_ryu_format_double(char *out, double v);

#endif
