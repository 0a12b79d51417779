"""api/util/dtoa_tables.h is exactly what scripts/gen_dtoa_tables.py writes (nobody edits
the 128-bit multipliers of the double printer by hand)."""
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class GeneratedTables(unittest.TestCase):
    def test_dtoa_tables_match_their_generator(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "dtoa_tables.h")
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_dtoa_tables.py"), out],
                           check=True)
            with open(out, encoding="ascii") as f, \
                    open(os.path.join(ROOT, "api", "util", "dtoa_tables.h"), encoding="ascii") as g:
                self.assertEqual(f.read(), g.read())


if __name__ == "__main__":
    unittest.main(verbosity=2)
