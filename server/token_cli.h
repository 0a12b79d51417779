/* `rigd token …`: managing API tokens from the machine that holds the
 * database, without a running server (the first admin token of a deployment,
 * rotating a lost one). */
#ifndef RIG_TOKEN_CLI_H
#define RIG_TOKEN_CLI_H

/* Runs `token create|list|revoke` (argv[0] is "token"). Returns the process
 * exit code: 0 done, 1 failed (message on stderr), 2 usage. */
int rig_token_cli(int argc, char **argv);

#endif
