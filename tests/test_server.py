"""The embedded server as a local service: db start/status/url/stop, recovery after kill -9, temporary servers."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
import sqlalchemy as sa
from typer.testing import CliRunner

from termx.cli import app
from termx.index.ingest import Document
from termx.storage import embedded
from termx.storage.db import connect_or_explain, resolve_url, upgrade
from termx.storage.indexer import index_documents
from termx.storage.serveruser import _can_search, server_account
from tests.serverutil import holder, termx_env, termx_home, wait_for


def _cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def _status() -> dict:  # type: ignore[type-arg]
    code, out, _ = _cli("db", "status", "--format", "json")
    assert code == 0
    return json.loads(out)[0]


def test_lifecycle_start_status_url_stop_and_recovery(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    with termx_home(tmp_path / "home"):
        code, _, err = _cli("db", "stop")
        assert code == 0 and "not running" in err

        code, _, err = _cli("db", "start")
        assert code == 0 and "started" in err
        status = _status()
        assert status["running"] and status["mode"].startswith("kept") and status["size_mb"] > 0
        assert status["data_dir"] == str((tmp_path / "home" / "pgdata").resolve())
        first_pid = status["pid"]

        code, url, _ = _cli("db", "url")
        assert code == 0 and url.startswith("postgresql://")
        with psycopg.connect(url.strip()) as conn:
            assert conn.execute("SELECT 6 * 7").fetchone() == (42,)
            assert conn.execute("SHOW listen_addresses").fetchone() == ("",)

        code, _, err = _cli("db", "start")  # a second start changes nothing
        assert code == 0 and "already running" in err and _status()["pid"] == first_pid

        code, _, _ = _cli("db", "psql", "--", "-At", "-c", "SHOW search_path")
        assert code == 0 and capfd.readouterr().out.strip() == "termx,public"

        proc = holder()  # a command uses the kept server and takes no lease on it
        proc.kill()
        proc.wait()
        assert _status()["pid"] == first_pid and _status()["commands"] == 0

        os.kill(first_pid, signal.SIGKILL)  # a crash leaves postmaster.pid and orphaned backends behind
        assert wait_for(lambda: not _status()["running"], 30)
        code, _, err = _cli("db", "start")
        assert code == 0 and "started" in err
        status = _status()
        assert status["running"] and status["pid"] != first_pid
        with psycopg.connect(embedded.url()) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)

        stopped_url = embedded.url()
        code, _, err = _cli("db", "stop")
        assert code == 0 and "stopped" in err
        code, _, err = _cli("db", "stop")
        assert code == 0 and "not running" in err
        assert not _status()["running"]
        assert not (tmp_path / "home" / "pgdata" / "postmaster.pid").exists()
        # stopped: the address it will have (its socket under TERMX_HOME), said to be not running
        code, out, err = _cli("db", "url")
        assert code == 0 and "not running" in err and out.strip() == stopped_url
        code, _, err = _cli("db", "url", "--tcp")
        assert code == 1 and "not running" in err


def test_status_says_when_commands_use_another_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with termx_home(tmp_path / "home"):
        code, _, err = _cli("db", "status")
        assert code == 0 and "TERMX_DATABASE_URL" not in err
        monkeypatch.setenv("TERMX_DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none")
        code, out, err = _cli("db", "status", "--format", "json")
        assert code == 0 and json.loads(out)[0]["running"] is False
        assert "TERMX_DATABASE_URL is set" in err


def test_command_without_server_starts_and_stops_its_own(tmp_path: Path) -> None:
    """The command is `termx sql`: on the embedded server its query runs logged in as termx_reader."""
    query = tmp_path / "who.sql"
    query.write_text("-- who runs analyst queries\nSELECT session_user AS s, count(*) AS n FROM termx.corpus\n")
    with termx_home(tmp_path / "home"):
        run = subprocess.run([sys.executable, "-m", "termx", "sql", str(query), "--format", "json"],
                             env=termx_env(), capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout) == [{"s": "termx_reader", "n": 0}]
        assert run.stderr.count("termx db start") == 1  # says once how to keep one running
        assert not embedded.status().running


def test_temporary_server_lives_while_any_command_holds_it_even_after_kill_9(tmp_path: Path) -> None:
    with termx_home(tmp_path / "home"):
        first = holder()
        second = holder()
        try:
            pid = embedded.status().pid
            assert pid is not None and embedded.status().commands == 2
            first.kill()  # kill -9: its watchdog releases its lease; the other command still holds the server
            first.wait()
            assert wait_for(lambda: embedded.status().commands == 1, 30)
            assert embedded.status().pid == pid
            second.kill()
            second.wait()
            assert wait_for(lambda: not embedded.status().running, 60), "the server outlived every command"
        finally:
            for proc in (first, second):
                proc.kill()
                proc.wait()


@pytest.mark.skipif(os.geteuid() != 0, reason="the server runs as another user (behind an ACL entry) only for root")
def test_a_chmod_above_home_then_a_backend_crash_does_not_lose_the_server(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    top = tmp_path / "top"
    top.mkdir(mode=0o700)
    with termx_home(top / "home"):
        embedded.start()  # lets termx-postgres through `top` with an ACL entry
        engine = connect_or_explain(resolve_url(embedded.url()))
        upgrade(engine)
        index_documents(engine, "crash", [Document("a", "Hi_Ho_Hi_Ho"), Document("b", "Hi")])
        lookup = sa.text("SELECT freq FROM termx.stats('crash', ARRAY['Hi', 'Ho', 'x'])")
        with engine.connect() as conn:
            assert list(conn.execute(lookup).scalars()) == [3, 2, 0]
        first_pid = embedded.status().pid

        os.chmod(top, 0o700)  # as pytest does to /tmp/pytest-of-root: the ACL mask now hides the entry
        with psycopg.connect(embedded.url(), autocommit=True) as victim:
            backend = victim.execute("SELECT pg_backend_pid()").fetchone()[0]
            os.kill(backend, signal.SIGKILL)  # a backend crash: PostgreSQL restarts itself, and cannot any more
            assert wait_for(lambda: not embedded.status().running, 30)

        with caplog.at_level("WARNING", logger="termx"), engine.connect() as conn:  # the same long-lived engine
            assert list(conn.execute(lookup).scalars()) == [3, 2, 0]
        restarted = [r.getMessage() for r in caplog.records if "restarted" in r.getMessage()]
        assert len(restarted) == 1 and "could not stat data directory" in restarted[0], caplog.text
        assert embedded.status().running and embedded.status().pid != first_pid and _status()["mode"].startswith("kept")
        engine.dispose()
        with engine.connect() as conn:  # told once: a healthy server is not restarted again
            assert conn.execute(sa.text("SELECT 1")).scalar() == 1
        assert len([r for r in caplog.records if "restarted" in r.getMessage()]) == 1

        os.chmod(top, 0o700)  # again; now any termx command that finds the server running gives the way back
        account = server_account(top / "home" / "pgdata")
        assert not _can_search(top, account)
        embedded.start()
        assert _can_search(top, account)

        os.chmod(top, 0o700)  # once more, and the crash comes while no client is connected
        with psycopg.connect(embedded.url(), autocommit=True) as victim:
            os.kill(victim.execute("SELECT pg_backend_pid()").fetchone()[0], signal.SIGKILL)
            assert wait_for(lambda: not embedded.status().running, 30)
        again = subprocess.run([sys.executable, "-m", "termx", "stats", "crash", "Hi", "--format", "csv"],
                               env=termx_env(), capture_output=True, text=True, timeout=120)
        assert again.returncode == 0 and again.stdout.splitlines()[1].startswith("Hi,3,"), again.stderr
        assert "restarted it" in again.stderr and "could not stat data directory" in again.stderr, again.stderr
        assert "temporary" not in again.stderr  # the next command brings back the kept server, not a temporary one
        assert _status()["mode"].startswith("kept")
