# SPDX-License-Identifier: BSD-3-Clause
"""A compressed capture as a plain file, for as long as a test uses it.

nfsscope reads the public .bz2 captures as they are; tshark and libpcap read
only plain ones. Decompressed, those captures are 20-180 MB each (660 MB in
all), so a test holds one at a time in its work directory and removes it when
done: a CI run's tests would otherwise leave gigabytes on a shared disk."""
import bz2
import contextlib
import os
import shutil


@contextlib.contextmanager
def plain(path, work):
    """Yields path itself, or for a .bz2 the path of its decompressed copy in
    work, removed when the with block ends."""
    if not path.endswith(".bz2"):
        yield path
        return
    out = os.path.join(work, os.path.basename(path)[:-4])
    part = out + ".part"
    try:
        with bz2.open(path, "rb") as src, open(part, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        os.replace(part, out)
        yield out
    finally:
        for p in (part, out):
            with contextlib.suppress(FileNotFoundError):
                os.remove(p)
