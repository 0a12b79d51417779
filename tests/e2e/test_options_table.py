"""rigd's options come from one table (server/config.c): `rigd --options-markdown` prints the
the option table of docs/configuration.md from it, which must hold exactly that table; `--help` lists the
same options with their RIGD_* variables, each variable works like its flag, and a value past
a bound is refused (exit 2) by both."""
import os
import re
import subprocess
import unittest

from rigd_harness import RIGD_BIN, ROOT


def run(*args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([RIGD_BIN, *args], capture_output=True, text=True, env=e, timeout=10)


class OptionsTable(unittest.TestCase):
    def test_the_readme_holds_the_generated_table(self):
        out = run("--options-markdown")
        self.assertEqual(out.returncode, 0, out.stderr)  # printed, as --help
        with open(os.path.join(ROOT, "docs", "configuration.md")) as f:
            readme = f.read()
        start = readme.index("| flag | env | default | meaning |")
        end = readme.find("\n\n", start)
        table = readme[start:end if end >= 0 else len(readme)].rstrip("\n") + "\n"
        self.assertEqual(table, out.stdout,
                         "docs/configuration.md's option table differs from `rigd --options-markdown`")

    def test_help_lists_every_option_with_its_variable(self):
        table = run("--options-markdown").stdout
        rows = re.findall(r"^\| `--([a-z-]+)[^`]*` \| `(RIGD_[A-Z_]+)` \|", table, re.M)
        self.assertGreater(len(rows), 20)
        help_text = run("--help").stdout
        for flag, env in rows:
            self.assertIn(f"--{flag} ", help_text)
            self.assertIn(env, help_text.replace("\n", " ").replace("  ", " "))
            self.assertEqual(env, "RIGD_" + flag.upper().replace("-", "_"))

    def test_a_variable_is_read_as_its_flag(self):
        for flag, good, bad in (("threads", "256", "257"), ("workers", "1", "0"),
                                ("history-versions", "1000000000", "1000000001"),
                                ("read-cache-mb", "0", "-1"), ("rate-limit", "0", "+1"),
                                ("durability", "process", "half"), ("auth", "off", "yes"),
                                ("min-body-rate", "1", "0"), ("max-body", "17179869184",
                                                              "17179869185")):
            env = "RIGD_" + flag.upper().replace("-", "_")
            with self.subTest(flag=flag):
                self.assertEqual(run(f"--{flag}", good, "--help").returncode, 0)
                self.assertEqual(run(f"--{flag}={good}", "--help").returncode, 0)
                self.assertEqual(run("--help", env={env: good}).returncode, 0)
                bad_flag = run(f"--{flag}", bad, "--help")
                self.assertEqual(bad_flag.returncode, 2)
                self.assertIn(f"invalid value '{bad}' for --{flag}", bad_flag.stderr)
                bad_env = run("--help", env={env: bad})
                self.assertEqual(bad_env.returncode, 2)
                self.assertIn(f"for {env}", bad_env.stderr)

    def test_unknown_options_and_missing_values_are_usage_errors(self):
        out = run("--no-such-option", "1")
        self.assertEqual(out.returncode, 2)
        self.assertIn("unknown option '--no-such-option'", out.stderr)
        self.assertIn("usage: rigd", out.stderr)
        out = run("--threads")
        self.assertEqual(out.returncode, 2)
        self.assertIn("needs a value", out.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
