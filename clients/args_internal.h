/* What args.c and args_doc.c share and no program needs: the words for what
 * a row's value must be, and whether a row applies to a command and is
 * required by it.
 */
#ifndef RIG_ARGS_INTERNAL_H
#define RIG_ARGS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

struct rig_arg_spec; /* clients/args.h */

/* Writes what row o's values are into out (size bytes): its what, else "a
 * whole number of at least 1", "a number", "a, b or c", "1 to 128 characters",
 * "not empty"; "" for a flag or any text. */
void rig_args__what(char *out, size_t size, const struct rig_arg_spec *o);

/* Writes choice word as a kebab row documents it ("pinWeights": "pin-weights";
 * other rows: as it is) into out. */
void rig_args__choice(char *out, size_t size, const struct rig_arg_spec *o, const char *word);

/* Whether row o is read for the command bit cmd. */
bool rig_args__applies(const struct rig_arg_spec *o, unsigned long long cmd /* rig_arg_cmds */);

/* Whether the command bit cmd needs row o (of the rows that apply to it). */
bool rig_args__required(const struct rig_arg_spec *o, unsigned long long cmd /* rig_arg_cmds */);

#endif
