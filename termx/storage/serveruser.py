"""Who runs the embedded PostgreSQL, and how it is let in without widening anyone else's access.

PostgreSQL refuses to run as root, so as root the server runs as a dedicated system user (created once,
announced on stderr). That user is let into the directories on the way to its data directory and binaries by a
POSIX ACL entry naming it alone with search (x) permission: no mode bit changes for anyone else.
"""

from __future__ import annotations

import errno
import logging
import os
import pwd
import stat
import struct
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from termx.errors import DatabaseUnavailable

SERVER_USER = "termx-postgres"
log = logging.getLogger("termx")

_ACL = "system.posix_acl_access"
_USER_OBJ, _USER, _GROUP_OBJ, _GROUP, _MASK, _OTHER = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20
_NO_ID = 0xFFFFFFFF
_SEARCH = 1  # the x bit of an ACL entry
# Where useradd is looked up: never the caller's PATH, which may name a directory another user can write.
_SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@dataclass(frozen=True)
class Account:
    """The operating-system user the server runs as."""

    name: str
    uid: int
    gid: int

    @property
    def is_self(self) -> bool:
        """True when the server runs as the current user (no privilege change needed)."""
        return self.uid == os.geteuid()


def server_account(data_dir: Path) -> Account:
    """The current user; as root, the dedicated system user, and never the owner of a data directory someone else
    made (whoever owns it edits its pg_hba.conf, and so would own root's database): such a `data_dir` is refused."""
    if os.geteuid() != 0:
        entry = pwd.getpwuid(os.geteuid())
        account = Account(entry.pw_name, entry.pw_uid, os.getegid())
    else:
        entry = _system_user(SERVER_USER)
        account = Account(entry.pw_name, entry.pw_uid, entry.pw_gid)
    check_data_dir(data_dir, account)
    return account


def check_data_dir(data_dir: Path, account: Account) -> None:
    """Refuse a data directory the server user (or we) did not make, or that others can write: its owner controls
    pg_hba.conf and the server's files. An empty one of ours is fine (termx gives it to the server user)."""
    try:
        st = os.lstat(data_dir)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise DatabaseUnavailable(f"{data_dir} is not a directory (a link or a file)",
                                  "move it away, or set TERMX_HOME elsewhere")
    if st.st_uid not in (account.uid, os.geteuid()):
        raise DatabaseUnavailable(f"{data_dir} belongs to {_user_name(st.st_uid)}, not to {account.name} "
                                  "(its owner would control the database)",
                                  f"move it away; only if you trust it: chown -R {account.name} {data_dir}")
    _refuse_writable_by_others(data_dir, st)


def check_home(home: Path) -> None:
    """Refuse a termx home (and directories above it) that another user owns or can write: they could replace
    its data directory, password file, sockets or caches. Directories above may be root's, and shared ones
    sticky (/tmp)."""
    for path in [home, *home.parents]:
        st = os.stat(path)
        if st.st_uid != os.geteuid() and (path == home or st.st_uid != 0):
            raise DatabaseUnavailable(f"{path} belongs to {_user_name(st.st_uid)}, not to you "
                                      "(they could replace termx's files)",
                                      "set TERMX_HOME to a directory of your own")
        if path == home or not st.st_mode & stat.S_ISVTX:
            _refuse_writable_by_others(path, st)


def _refuse_writable_by_others(path: Path, st: os.stat_result) -> None:
    """Group or other write permission (with an ACL, the group bits are its mask, which covers named entries)."""
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise DatabaseUnavailable(f"{path} can be written by other users (mode {stat.S_IMODE(st.st_mode):04o})",
                                  f"chmod go-w {path}, or set TERMX_HOME to a private directory")


def _user_name(uid: int) -> str:
    try:
        return f"user {pwd.getpwuid(uid).pw_name!r}"
    except KeyError:
        return f"uid {uid}"


def _system_user(name: str) -> pwd.struct_passwd:
    """The system user `name`, created (no home, no login shell) and announced if it does not exist."""
    try:
        return pwd.getpwnam(name)
    except KeyError:
        pass
    log.warning(f"termx: creating system user {name!r} to run the embedded PostgreSQL "
                "(PostgreSQL refuses to run as root)")
    try:
        subprocess.run(["useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
                        "--shell", "/usr/sbin/nologin", "--comment", "termx embedded PostgreSQL", name],
                       check=True, capture_output=True, text=True, env={"PATH": _SYSTEM_PATH}, cwd="/")
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", "") or str(exc)
        raise DatabaseUnavailable(f"cannot create system user {name!r}: {detail.strip()}",
                                  "run termx as an ordinary user, or pass `url=URL`", ("url",)) from None
    return pwd.getpwnam(name)


def run_as(account: Account, args: Sequence[str | Path], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """Run a PostgreSQL program (`args[0]`, an absolute path into the installed binaries) as `account`, from /
    (dropping root when needed); raises CalledProcessError on failure."""
    if not account.is_self:
        kwargs.update(user=account.uid, group=account.gid, extra_groups=[])
    kwargs.setdefault("cwd", "/")
    return subprocess.run([str(a) for a in args], check=True, text=True, capture_output=True, **kwargs)


def own(path: Path, account: Account, mode: int) -> None:
    """Give `path` (created by us) to `account` with `mode`."""
    if not account.is_self:
        os.chown(path, account.uid, account.gid, follow_symlinks=False)
    os.chmod(path, mode)


def grant_search(path: Path, account: Account) -> None:
    """Let `account` reach `path`: an ACL entry (x for that user alone) on each directory on the way that blocks it."""
    if account.is_self:
        return
    for directory in [*reversed(path.parents), path]:
        if not _can_search(directory, account):
            log.warning(f"termx: letting {account.name} pass through {directory} (ACL entry user:{account.name}:x; "
                        "no other permission changes)")
            _add_acl_search(directory, account.uid)


def _can_search(directory: Path, account: Account) -> bool:
    """Whether `account` may traverse `directory` (owner, group, named-ACL and other classes)."""
    st = directory.stat()
    if st.st_uid == account.uid:
        return bool(st.st_mode & stat.S_IXUSR)
    entries = _read_acl(directory)
    mask = next((perm for tag, perm, _ in entries if tag == _MASK), 7)
    if any(tag == _USER and ident == account.uid and perm & mask & _SEARCH for tag, perm, ident in entries):
        return True
    if st.st_gid in os.getgrouplist(account.name, account.gid):
        return bool(st.st_mode & stat.S_IXGRP)
    return bool(st.st_mode & stat.S_IXOTH)


def _read_acl(directory: Path) -> list[tuple[int, int, int]]:
    """The access ACL of `directory` as (tag, perm, id) entries; the three mode entries when it has none."""
    try:
        raw = os.getxattr(directory, _ACL)
    except OSError as exc:
        if exc.errno not in (errno.ENODATA, errno.ENOTSUP):
            raise
        mode = directory.stat().st_mode
        return [(_USER_OBJ, (mode >> 6) & 7, _NO_ID), (_GROUP_OBJ, (mode >> 3) & 7, _NO_ID), (_OTHER, mode & 7, _NO_ID)]
    return [struct.unpack_from("<HHI", raw, 4 + 8 * i) for i in range((len(raw) - 4) // 8)]


def _add_acl_search(directory: Path, uid: int) -> None:
    """Add (or extend) the named-user entry `uid` with x; the mask grows only by x, the group entry is unchanged."""
    entries = [e for e in _read_acl(directory) if e[0] != _MASK]
    current = next((perm for tag, perm, ident in entries if tag == _USER and ident == uid), 0)
    entries = [e for e in entries if not (e[0] == _USER and e[2] == uid)] + [(_USER, current | _SEARCH, uid)]
    mask = 0
    for tag, perm, _ in entries:
        if tag in (_USER, _GROUP_OBJ, _GROUP):
            mask |= perm
    entries.append((_MASK, mask, _NO_ID))
    entries.sort(key=lambda e: (e[0], e[2]))
    raw = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)
    try:
        os.setxattr(directory, _ACL, raw)
    except OSError as exc:
        raise DatabaseUnavailable(f"cannot let the server user {pwd.getpwuid(uid).pw_name!r} reach {directory} "
                                  f"({exc.strerror}; the file system may not support ACLs)",
                                  "set TERMX_HOME to a directory other users can pass through, or pass `url=URL`",
                                  ("url",)
                                  ) from None
