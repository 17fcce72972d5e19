"""Remote inputs: URLs read through fsspec wherever a path is accepted, as the local file reads.

``memory://`` is fsspec's in-memory filesystem (this process only); ``http://`` is a
server on 127.0.0.1 started by this module. Every command's values from a URL equal
those from the same local file; a missing file, a folder and a missing fsspec are
errors naming the URL or the extra; ``import scorekit`` loads no fsspec. The Dask
engine reads URLs on its workers (the HTTP server, which the worker processes reach).
"""

from __future__ import annotations

import functools
import http.server
import json
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from scorekit import evaluate, parse_metric
from scorekit.cli import main
from scorekit.errors import ConfigError, InputError
from scorekit.io import as_url, local_path, open_source, read_limited, read_table, remote_files

fsspec = pytest.importorskip("fsspec")

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "examples" / "data"
FILES = ("binary.csv", "qrels.txt", "run.txt", "hyps.txt", "refs_a.txt", "refs_b.txt")


def _table(seed: int, rows: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, rows)
    return pa.table(
        {
            "id": np.arange(rows),
            "label": label,
            "pred": np.where(rng.random(rows) < 0.7, label, 1 - label),
            "score": rng.random(rows).round(4),
        }
    )


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The files read remotely, as local files: bundled ones and random tables in shards."""
    folder = tmp_path_factory.mktemp("remote_local")
    for name in FILES:
        shutil.copy(DATA / name, folder / name)
    shards = folder / "shards"
    shards.mkdir()
    for i in range(3):
        table = _table(i, 50 + 10 * i)
        pq.write_table(table, shards / f"part{i}.parquet", row_group_size=20)
        pacsv.write_csv(table, shards / f"part{i}.csv")
    return folder


@pytest.fixture(scope="module")
def memory(local: Path) -> Iterator[str]:
    """The local files copied to fsspec's in-memory filesystem, under a root of this module."""
    fs = fsspec.filesystem("memory")
    root = "/scorekit-remote-tests"
    for path in local.rglob("*"):
        if path.is_file():
            fs.pipe(f"{root}/{path.relative_to(local).as_posix()}", path.read_bytes())
    yield f"memory://{root.lstrip('/')}"
    fs.rm(root, recursive=True)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def server(local: Path) -> Iterator[str]:
    """An HTTP server on 127.0.0.1 serving the local files."""
    handler = functools.partial(_Quiet, directory=str(local))
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as httpd:
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
        httpd.shutdown()
        thread.join(10)


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> Any:
    status = main([*argv, "--format", "json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "Traceback" not in err
    return json.loads(out)


# the commands -------------------------------------------------------------------------------

EVAL = ["--task", "binary", "--true", "label", "--score", "score", "--threshold", "0.4"]


@pytest.mark.parametrize("where", ["memory", "server"])
@pytest.mark.parametrize(
    ("name", "extra"),
    [
        ("binary.csv", ["--task", "binary", "--true", "label", "--score", "score"]),
        ("shards/part1.parquet", EVAL),
        ("shards/part2.csv", [*EVAL, "--chunk-size", "7"]),
        ("shards/*.parquet", [*EVAL, "--chunk-size", "13"]),
    ],
)
def test_eval_reads_a_url_as_the_local_file(
    where: str,
    name: str,
    extra: list[str],
    local: Path,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if where == "server" and "*" in name:
        pytest.skip("an HTTP server lists no folder")
    base = request.getfixturevalue(where)
    remote = _json(capsys, ["eval", f"{base}/{name}", *extra, "--quiet"])
    expected = _json(capsys, ["eval", str(local / name), *extra, "--quiet"])
    assert remote == expected
    assert remote


def test_eval_reads_a_folder_url(
    memory: str, local: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the folder holds Parquet and CSV shards of the same rows: every file is read
    argv = [*EVAL, "--chunk-size", "16", "--quiet"]
    remote = _json(capsys, ["eval", f"{memory}/shards", *argv])
    expected = _json(capsys, ["eval", str(local / "shards"), *argv])
    assert remote == expected


@pytest.mark.parametrize("where", ["memory", "server"])
def test_rank_and_text_read_urls(
    where: str, local: Path, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    base = request.getfixturevalue(where)
    for argv in (
        ["rank", "{}/qrels.txt", "{}/run.txt", "-m", "map", "ndcg@10"],
        ["text", "--refs", "{}/refs_a.txt", "{}/refs_b.txt", "--hyps", "{}/hyps.txt"],
    ):
        remote = [a.format(base) for a in argv]
        plain = [a.format(local) for a in argv]
        assert _json(capsys, [*remote, "--quiet"]) == _json(capsys, [*plain, "--quiet"])


@pytest.mark.parametrize("where", ["memory", "server"])
def test_merge_reads_state_files_at_urls(
    where: str,
    local: Path,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    base = request.getfixturevalue(where)
    names = []
    for i in range(2):
        state = local / f"state{i}-{where}.json"
        _json(capsys, ["eval", str(local / "shards" / f"part{i}.csv"), *EVAL, "--quiet"])
        status = main(
            ["eval", str(local / "shards" / f"part{i}.csv"), *EVAL, "--save-state", str(state)]
        )
        capsys.readouterr()
        assert status == 0
        if where == "memory":
            fsspec.filesystem("memory").pipe(
                f"/scorekit-remote-tests/{state.name}", state.read_bytes()
            )
        names.append(state.name)
    remote = _json(capsys, ["merge", *(f"{base}/{n}" for n in names)])
    plain = _json(capsys, ["merge", *(str(local / n) for n in names)])
    assert remote == plain


# the io functions ---------------------------------------------------------------------------


def test_every_reader_takes_a_url(memory: str, local: Path) -> None:
    url = f"{memory}/shards/part0.csv"
    assert read_table(url).equals(read_table(local / "shards" / "part0.csv"))
    assert read_limited(url, "a file") == (local / "shards" / "part0.csv").read_bytes()
    source = open_source(f"{memory}/shards/*.csv")
    assert len(source.files) == 3
    assert source.name == f"{memory}/shards/*.csv"
    metric = parse_metric("f1")
    columns = {"y_true": "label", "y_pred": "pred"}
    got = evaluate(f"{memory}/shards/*.parquet", [metric], columns=columns, chunk_size=11)
    expected = evaluate(str(local / "shards"), [metric], columns=columns)
    assert got.values["f1"] == pytest.approx(expected.values["f1"], rel=1e-12)


def test_a_url_made_a_path_is_still_the_url(memory: str) -> None:
    # Path() drops the second slash of the scheme
    assert as_url(Path("memory://bucket/a.csv")) == "memory://bucket/a.csv"
    assert as_url(Path("https://example.org:8080/x/a.csv")) == "https://example.org:8080/x/a.csv"
    assert as_url("relative/a.csv") is None
    assert as_url("file:///tmp/a.csv") is None
    copy = local_path(Path(f"{memory}/binary.csv"))
    assert isinstance(copy, Path) and copy.name == "binary.csv"
    assert copy.read_bytes() == (DATA / "binary.csv").read_bytes()


def test_listing_a_url(memory: str) -> None:
    found = remote_files(f"{memory}/shards/*.csv")
    assert [u.rsplit("/", 1)[1] for u in found] == ["part0.csv", "part1.csv", "part2.csv"]


@pytest.mark.parametrize("where", ["memory", "server"])
def test_a_missing_url_is_an_error_naming_it(where: str, request: pytest.FixtureRequest) -> None:
    base = request.getfixturevalue(where)
    url = f"{base}/no/such.csv"
    with pytest.raises(InputError, match=r"no/such\.csv: no such file"):
        read_table(url)
    with pytest.raises(InputError, match=r"no/such\.csv: no such file"):
        open_source(url)
    with pytest.raises(InputError, match=r"no/such\.csv: no such file"):
        read_limited(url, "a state file")


def test_a_glob_matching_nothing(memory: str) -> None:
    with pytest.raises(InputError, match="the pattern matches no file"):
        open_source(f"{memory}/shards/*.tsv")


def test_the_cli_refuses_a_missing_url(server: str, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["eval", f"{server}/nothing.csv", *EVAL])
    _, err = capsys.readouterr()
    assert status == 2
    assert err.startswith("scorekit: ") and "nothing.csv: no such file" in err
    assert "Traceback" not in err


def test_without_fsspec_a_url_is_refused_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "fsspec", None)
    for call in (
        lambda: read_table("s3://bucket/a.csv"),
        lambda: open_source("gs://bucket/runs/*.parquet"),
        lambda: read_limited("https://example.org/state.json", "a state file"),
    ):
        with pytest.raises(ConfigError, match=r"needs fsspec.*scorekit\[remote\]"):
            call()


def test_a_filesystem_without_its_package_is_refused_naming_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def missing(url: str, **kwargs: Any) -> Any:
        raise ImportError("Install s3fs to access S3")

    monkeypatch.setattr(fsspec.core, "url_to_fs", missing)
    with pytest.raises(ConfigError, match="Install s3fs to access S3"):
        read_table("s3://bucket/a.csv")


def test_import_scorekit_does_not_import_fsspec() -> None:
    code = "import sys, scorekit, scorekit.io; print('fsspec' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "False"


# the Dask engine ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scheduler(dask_cluster: Any) -> str:
    pytest.importorskip("dask.dataframe")
    return str(dask_cluster.scheduler_address)


@pytest.mark.parametrize("name", ["shards/part1.parquet", "shards/part2.csv", "binary.csv"])
def test_dask_reads_urls_on_its_workers(
    name: str, server: str, local: Path, scheduler: str, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = EVAL if name.startswith("shards") else EVAL[:6]
    remote = _json(
        capsys,
        [
            "eval",
            f"{server}/{name}",
            *extra,
            "--engine",
            "dask",
            "--scheduler",
            scheduler,
            "--quiet",
        ],
    )
    expected = _json(capsys, ["eval", str(local / name), *extra, "--quiet"])
    assert remote.keys() == expected.keys()
    for key, value in expected.items():
        assert remote[key] == pytest.approx(value, rel=1e-12), key


def test_dask_reads_a_missing_url_as_an_error(
    server: str, scheduler: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["eval", f"{server}/none.parquet", *EVAL, "--engine", "dask", "--scheduler", scheduler]
    status = main(argv)
    _, err = capsys.readouterr()
    assert status == 2
    assert "none.parquet: no such file" in err and "Traceback" not in err


def test_an_error_in_a_remote_file_names_where_it_came_from(memory: str) -> None:
    fsspec.filesystem("memory").pipe(
        "/scorekit-remote-tests/bad/labels.csv", b"y_true,y_pred\n1,1\n0,1,5\n"
    )
    with pytest.raises(InputError) as caught:
        evaluate(
            f"{memory}/bad/labels.csv",
            ["accuracy"],
            columns={"y_true": "y_true", "y_pred": "y_pred"},
            chunk_size=1,
        )
    text = str(caught.value)
    assert "memory/scorekit-remote-tests/bad/labels.csv" in text
    assert "line 3" in text
