"""Reference key evaluation for the e2e tests' independent models: linear keys as (frame, value)
pairs, held flat before the first and after the last (SPEC's clamping)."""


def key_value(keys, frame):
    if frame <= keys[0][0]:
        return keys[0][1]
    if frame >= keys[-1][0]:
        return keys[-1][1]
    for (f0, v0), (f1, v1) in zip(keys, keys[1:]):
        if f0 <= frame <= f1:
            return v0 + (v1 - v0) * (frame - f0) / (f1 - f0)
