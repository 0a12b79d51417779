"""What the build's generator scripts share: a generated file is rewritten only
when its text changes (so make sees nothing new and rebuilds nothing), through a
temporary file renamed into place (a failed run leaves the old file)."""
import os


def write_if_changed(path, text):
    old = None
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            old = f.read()
    if old != text:
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
