"""Hostile cases: state files, output paths, merging, the Dask address, demo, eval columns."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from hostile import assert_clean_error, scorekit, write
from openai_server import OpenAIServer

EVAL = ["--task", "binary", "--true", "y", "--pred", "p", "--quiet"]


def _data(tmp_path: Path, name: str = "x.csv") -> Path:
    return write(tmp_path / name, ["y,p", "1,1", "0,1", "1,0", "1,1"])


def _state(tmp_path: Path, name: str, data: Path | None = None) -> Path:
    data = data or _data(tmp_path, f"{name}.csv")
    path = tmp_path / name
    done = scorekit("eval", data, *EVAL, "--metric", "accuracy", "--save-state", path)
    assert done.returncode == 0, done.stderr
    return path


# output paths -------------------------------------------------------------------------


def test_save_state_onto_the_input_is_refused(tmp_path: Path) -> None:
    """[lost] ``eval x.csv --save-state x.csv`` would replace the data with the states."""
    data = _data(tmp_path)
    before = data.read_bytes()
    done = scorekit("eval", data, *EVAL, "--save-state", data)
    assert_clean_error(done, "--save-state", "the output file is one of the command's inputs")
    assert data.read_bytes() == before


@pytest.mark.parametrize("link", ["hard", "symbolic"])
def test_save_state_onto_a_link_to_the_input_is_refused(tmp_path: Path, link: str) -> None:
    """[lost] A hard or symbolic link to the input is the input (same device and inode)."""
    data = _data(tmp_path)
    before = data.read_bytes()
    other = tmp_path / "other.csv"
    if link == "hard":
        os.link(data, other)
    else:
        other.symlink_to(data)
    done = scorekit("eval", data, *EVAL, "--save-state", other)
    assert_clean_error(done, "one of the command's inputs", "other.csv")
    assert data.read_bytes() == before


def test_save_state_inside_an_input_directory_is_refused(tmp_path: Path) -> None:
    """[lost] A file of the directory being read is an input too."""
    folder = tmp_path / "shards"
    folder.mkdir()
    part = _data(folder, "part-0.csv")
    before = part.read_bytes()
    done = scorekit("eval", folder, *EVAL, "--save-state", part)
    assert_clean_error(done, "one of the command's inputs")
    assert part.read_bytes() == before


def test_merge_save_state_onto_a_shard_is_refused(tmp_path: Path) -> None:
    """[lost] ``merge a b --save-state a`` would replace a shard with the merged states."""
    a = _state(tmp_path, "a.json")
    b = _state(tmp_path, "b.json", write(tmp_path / "b.csv", ["y,p", "0,0"]))
    before = a.read_bytes()
    done = scorekit("merge", a, b, "--save-state", a)
    assert_clean_error(done, "--save-state", "one of the command's inputs")
    assert a.read_bytes() == before


def test_save_state_onto_a_directory_fails_before_the_work(tmp_path: Path) -> None:
    """[lost] A directory as the output is found at once, not after the evaluation."""
    done = scorekit("eval", _data(tmp_path), *EVAL, "--save-state", tmp_path)
    assert_clean_error(done, "--save-state", "is a directory")


def test_save_state_onto_a_fifo_writes_into_it(tmp_path: Path) -> None:
    """[lost] A pipe is written in place, never replaced by a regular file."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    done = scorekit("eval", _data(tmp_path), *EVAL, "--save-state", fifo)
    reader.join(timeout=30)
    assert done.returncode == 0, done.stderr
    assert fifo.is_fifo()
    assert json.loads(received[0])["scorekit_states"] == 1


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None or shutil.which("mknod") is None,
    reason="a device file is made in a throw-away mount namespace, which needs root",
)
def test_save_state_onto_dev_null_keeps_the_device(tmp_path: Path) -> None:
    """[lost] As root, ``--save-state /dev/null`` once replaced the device with a regular file.

    Run inside a private mount namespace over a tmpfs ``/dev``, so the machine's
    own ``/dev/null`` is never at risk.
    """
    data = _data(tmp_path)
    script = (
        "{ mount -t tmpfs none /dev && mknod -m 666 /dev/null c 1 3; } || exit 77; "
        f"{sys.executable} -m scorekit eval {data} {' '.join(EVAL)} --save-state /dev/null "
        "> /dev/null && test -c /dev/null && echo device-kept"
    )
    done = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode == 77 or (done.returncode != 0 and done.stderr.startswith("unshare")):
        pytest.skip(f"no private mount namespace with a tmpfs /dev here: {done.stderr.strip()}")
    assert "device-kept" in done.stdout, done.stderr


# one rule for every output: --report, -o/--output, --out, --save-state ---------------


def _run(tmp_path: Path, name: str, *lines: str) -> Path:
    return write(tmp_path / name, list(lines) or ["q1 Q0 d1 1 2.0 a", "q1 Q0 d2 2 1.0 a"])


@pytest.mark.parametrize("how", ["same path", "hard link", "symbolic link"])
def test_report_onto_the_input_is_refused(tmp_path: Path, how: str) -> None:
    """[lost] ``eval data.csv --report data.csv`` replaced the data with HTML, through links too."""
    data = _data(tmp_path)
    before = data.read_bytes()
    target = data
    if how == "hard link":
        target = tmp_path / "linked.csv"
        os.link(data, target)
    elif how == "symbolic link":
        target = tmp_path / "symlinked.csv"
        target.symlink_to(data)
    done = scorekit("eval", data, *EVAL, "--report", target)
    assert_clean_error(done, "eval --report", "the output file is one of the command's inputs")
    assert target.name in done.stderr
    assert data.read_bytes() == before


def test_save_state_and_report_onto_one_file_are_refused(tmp_path: Path) -> None:
    """[lost] ``--save-state x --report x``: the report replaced the states just written."""
    data = _data(tmp_path)
    same = tmp_path / "x"
    for extra in ([], ["--chunk-size", "2"]):
        done = scorekit("eval", data, *EVAL, *extra, "--save-state", same, "--report", same)
        assert_clean_error(done, "--report", "the same file as --save-state", str(same))
        assert not same.exists()
    # an existing file, reached through a link, is the same file too
    same.write_text("kept")
    link = tmp_path / "link"
    link.symlink_to(same)
    done = scorekit("eval", data, *EVAL, "--save-state", same, "--report", link)
    assert_clean_error(done, "--report", "the same file as --save-state")
    assert same.read_text() == "kept"


def test_merge_report_onto_a_shard_is_refused(tmp_path: Path) -> None:
    """[lost] ``merge shard.json --report shard.json`` replaced the shard with HTML."""
    shard = _state(tmp_path, "shard.json")
    before = shard.read_bytes()
    done = scorekit("merge", shard, "--report", shard)
    assert_clean_error(done, "merge --report", "one of the command's inputs", "shard.json")
    assert shard.read_bytes() == before


@pytest.fixture
def failing_server() -> Iterator[OpenAIServer]:
    srv = OpenAIServer(ttft=0.0, interval=0.0).start()
    yield srv
    srv.stop()


def _loadtest(server: OpenAIServer, prompts: Path, *args: str | Path) -> list[str | Path]:
    return ["loadtest", "--url", server.url, "--model", "m", "--prompts", prompts, *args]


def _prompts(tmp_path: Path, *prompts: str) -> Path:
    return write(tmp_path / "prompts.jsonl", [json.dumps({"prompt": p}) for p in prompts])


def test_loadtest_report_onto_the_prompts_or_the_records_is_refused(
    tmp_path: Path, failing_server: OpenAIServer
) -> None:
    """[lost] ``loadtest --report`` onto the prompts file or onto ``--out`` replaced them."""
    prompts = _prompts(tmp_path, "hi")
    before = prompts.read_bytes()
    done = scorekit(*_loadtest(failing_server, prompts, "--report", prompts))
    assert_clean_error(done, "loadtest --report", "one of the command's inputs", "prompts.jsonl")
    assert prompts.read_bytes() == before
    records = tmp_path / "records.jsonl"
    done = scorekit(*_loadtest(failing_server, prompts, "--out", records, "--report", records))
    assert_clean_error(done, "loadtest --out", "the same file as --report", "records.jsonl")
    assert not records.exists()
    records.write_text("earlier records\n")
    done = scorekit(*_loadtest(failing_server, prompts, "--out", records, "--report", records))
    assert_clean_error(done, "the same file as --report")
    assert records.read_text() == "earlier records\n"
    assert failing_server.requests == []


def test_loadtest_out_empty_is_refused(tmp_path: Path, failing_server: OpenAIServer) -> None:
    """[lost] ``--out ''`` ran the load test and wrote no records, without a word."""
    done = scorekit(*_loadtest(failing_server, _prompts(tmp_path, "hi"), "--out", ""))
    assert_clean_error(done, "loadtest --out: the path is empty")
    assert failing_server.requests == []


def test_loadtest_with_every_request_failed_exits_non_zero(
    tmp_path: Path, failing_server: OpenAIServer
) -> None:
    """[silent] A load test whose every request failed (HTTP 500) exited with status 0."""
    prompts = _prompts(tmp_path, "mode=http500", "mode=http500 a")
    # --warmup 0: no pre-flight request, which would stop the run at the first failure
    done = scorekit(*_loadtest(failing_server, prompts, "--quiet", "--warmup", "0"))
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr
    assert "scorekit: all 2 requests failed" in done.stderr
    assert "2 x http 500: model crashed" in done.stdout
    allowed = scorekit(
        *_loadtest(failing_server, prompts, "--quiet", "--warmup", "0", "--max-failures", "100%")
    )
    assert allowed.returncode == 0, allowed.stderr
    assert "requests failed;" not in allowed.stderr
    # one request answered is a run that measured something: status 0, as before
    mixed = _prompts(tmp_path, "mode=http500", "hi")
    assert scorekit(*_loadtest(failing_server, mixed, "--quiet", "--warmup", "0")).returncode == 0


def test_fuse_output_onto_an_input_run_is_refused(tmp_path: Path) -> None:
    """[lost] ``fuse a.txt b.txt -o a.txt`` replaced an input run with the fused one."""
    a, b = _run(tmp_path, "a.txt"), _run(tmp_path, "b.txt", "q1 Q0 d2 1 3.0 b")
    before = a.read_bytes()
    done = scorekit("fuse", a, b, "-o", a)
    assert_clean_error(done, "fuse -o/--output", "one of the command's inputs", "a.txt")
    assert a.read_bytes() == before


@pytest.mark.parametrize(
    ("output", "problem"),
    [
        ("no/dir/f.txt", "its folder does not exist"),
        (".", "is a directory"),
        ("", "the path is empty"),
        ("sub/", "is a directory"),
    ],
)
def test_fuse_output_that_cannot_be_written_is_refused(
    tmp_path: Path, output: str, problem: str
) -> None:
    """[crash] ``fuse -o no/dir/f.txt`` and ``fuse -o .`` ended in tracebacks."""
    a, b = _run(tmp_path, "a.txt"), _run(tmp_path, "b.txt", "q1 Q0 d2 1 3.0 b")
    done = scorekit("fuse", a, b, "-o", output, cwd=tmp_path)
    assert_clean_error(done, f"scorekit: fuse -o/--output: {problem}; got '{output}'")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt"]


@pytest.mark.parametrize("flag", ["--report", "--save-state"])
@pytest.mark.parametrize(("path", "problem"), [("", "the path is empty"), ("no/r", "folder")])
def test_an_output_that_cannot_be_written_is_refused_before_the_work(
    tmp_path: Path, flag: str, path: str, problem: str
) -> None:
    """[lost] ``--report ''`` was accepted and wrote nothing; a missing folder failed late."""
    done = scorekit("eval", _data(tmp_path), *EVAL, flag, path, cwd=tmp_path)
    assert_clean_error(done, f"eval {flag}", problem)
    assert done.stdout == ""


def test_outputs_onto_devices_are_written_in_place(tmp_path: Path) -> None:
    """[lost] ``/dev/null`` and ``/dev/stdout`` are written in place, by one output or two."""
    data = _data(tmp_path)
    args = ["eval", data, *EVAL, "--format", "json"]
    done = scorekit(*args, "--save-state", "/dev/null", "--report", "/dev/null")
    if "scorekit[report]" in done.stderr:
        pytest.skip("the report needs scorekit[report]")
    assert done.returncode == 0, done.stderr
    assert Path("/dev/null").is_char_device()
    done = scorekit(*args, "--save-state", "/dev/null", "--report", "/dev/stdout")
    assert done.returncode == 0, done.stderr
    assert done.stdout.lstrip().startswith("<!DOCTYPE html>")


# merging the same shard twice ---------------------------------------------------------


def test_merge_refuses_a_hard_link_to_the_same_file(tmp_path: Path) -> None:
    """[silent] A hard link to a shard counted its data twice."""
    a = _state(tmp_path, "a.json")
    link = tmp_path / "link.json"
    os.link(a, link)
    assert_clean_error(scorekit("merge", a, link), "the same state file is given twice")


def test_merge_refuses_an_identical_copy_unless_allowed(tmp_path: Path) -> None:
    """[silent] A byte-identical copy is refused; ``--allow-duplicates`` merges it."""
    a = _state(tmp_path, "a.json")
    copy = tmp_path / "copy.json"
    shutil.copyfile(a, copy)
    assert_clean_error(scorekit("merge", a, copy), "identical content", "--allow-duplicates")
    done = scorekit("merge", a, copy, "--allow-duplicates", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"accuracy": 0.5}
    assert "8 rows" in done.stderr


# whole-file reads: devices, pipes, bombs, deep nesting, long numbers --------------------


def test_a_fifo_as_a_state_file_is_refused_without_blocking(tmp_path: Path) -> None:
    """[hang] A FIFO with no writer blocked the merge for ever."""
    fifo = tmp_path / "state.json"
    os.mkfifo(fifo)
    assert_clean_error(scorekit("merge", fifo, timeout=30), "is a FIFO, not a regular file")


def test_dev_zero_as_a_state_file_is_refused() -> None:
    """[memory] ``merge /dev/zero`` read until MemoryError."""
    assert_clean_error(scorekit("merge", "/dev/zero", timeout=30), "is a device")


def test_a_gzip_bomb_stops_at_the_size_limit(tmp_path: Path) -> None:
    """[memory] A small gzip file that decompresses without end is cut at the limit."""
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip.compress(b" " * (64 << 20), 9))
    assert bomb.stat().st_size < 200_000
    done = scorekit("merge", bomb, "--max-file-size", "8M")
    assert_clean_error(done, "file too large", "once decompressed", "--max-file-size")


def test_the_size_limit_is_raised_by_the_option(tmp_path: Path) -> None:
    """[memory] A state file over the limit is refused, and read once the limit is raised."""
    a = _state(tmp_path, "a.json")
    assert_clean_error(scorekit("merge", a, "--max-file-size", "100"), "file too large")
    assert scorekit("merge", a, "--max-file-size", "1M").returncode == 0


def test_a_deeply_nested_state_file_is_an_error(tmp_path: Path) -> None:
    """[crash] JSON nested 100,000 deep raised RecursionError."""
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    assert_clean_error(scorekit("merge", path), str(path), "nested too deeply")


def test_a_state_file_with_a_huge_number_is_an_error(tmp_path: Path) -> None:
    """[crash] A number of 5,000 digits raised Python's integer-conversion ValueError."""
    path = tmp_path / "long.json"
    path.write_text('{"scorekit_states": ' + "9" * 5000 + "}")
    assert_clean_error(scorekit("merge", path), str(path), "a number too long")


# the Dask scheduler address -----------------------------------------------------------


@pytest.mark.parametrize("address", ["tcp://127.0.0.1", "foo://127.0.0.1:8786"])
def test_a_bad_scheduler_address_ends_at_once(tmp_path: Path, address: str) -> None:
    """[hang] An address without a port printed the error, then hung 61 s on exit."""
    pytest.importorskip("distributed")
    done = scorekit(
        "eval", _data(tmp_path), *EVAL, "--engine", "dask", "--scheduler", address, timeout=30
    )
    assert_clean_error(done, "invalid Dask scheduler address", address)
    assert "Exception ignored" not in done.stderr


# the demo manifest ----------------------------------------------------------------------


def test_demo_manifest_paths_stay_inside_the_directory(tmp_path: Path) -> None:
    """[silent] A manifest naming ``../secret.csv`` echoed files outside the demo directory."""
    secret = write(tmp_path / "secret.csv", ["y,p", "1,1", "0,0"])
    demo = tmp_path / "demo"
    demo.mkdir()
    manifest = [{"file": f"../{secret.name}", "task": "binary", "true": ["y"], "pred": ["p"]}]
    (demo / "manifest.json").write_text(json.dumps(manifest))
    done = scorekit("demo", "--data", demo)
    assert_clean_error(done, "a file outside the demo directory", "../secret.csv")
    assert "accuracy" not in done.stdout


def test_demo_manifest_entry_without_its_keys_is_an_error(tmp_path: Path) -> None:
    """[crash] An entry missing a key raised KeyError."""
    (tmp_path / "manifest.json").write_text(json.dumps([{"file": "x.csv"}]))
    assert_clean_error(scorekit("demo", "--data", tmp_path), "entry 1", "missing keys", "task")


# multiclass score columns ---------------------------------------------------------------


def _multiclass(tmp_path: Path) -> tuple[Path, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    n = 300
    y = rng.integers(0, 3, n)
    p = rng.dirichlet([1.0, 1.0, 1.0], n)
    p[np.arange(n), y] += rng.uniform(0, 0.6, n)
    p /= p.sum(axis=1, keepdims=True)
    names = np.array(["bird", "cat", "dog"])
    rows = ["y,p_dog,p_bird,p_cat,s1,s2,s3"]
    rows += [
        ",".join([str(names[t]), *(repr(float(q[i])) for i in (2, 0, 1, 2, 0, 1))])
        for t, q in zip(y, p, strict=True)
    ]
    return write(tmp_path / "mc.csv", rows), y, p


@pytest.mark.parametrize("chunked", [False, True])
def test_multiclass_score_columns_in_another_order_match_by_name(
    tmp_path: Path, chunked: bool
) -> None:
    """[silent] Columns listed out of the classes' sorted order gave a wrong AUC."""
    path, y, p = _multiclass(tmp_path)
    expected = roc_auc_score(y, p, multi_class="ovr")
    args = ["eval", path, "--task", "multiclass", "--true", "y", "--metric", "roc_auc"]
    args += ["--format", "json", "--quiet", *(["--chunk-size", "64"] if chunked else [])]
    for order in (["p_dog", "p_bird", "p_cat"], ["p_bird", "p_cat", "p_dog"]):
        done = scorekit(*args, "--score", *order)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["roc_auc"] == pytest.approx(expected, rel=1e-12)
    by_order = scorekit(*args, "--score", "s1", "s2", "s3", "--classes", "dog", "bird", "cat")
    assert json.loads(by_order.stdout)["roc_auc"] == pytest.approx(expected, rel=1e-12)


def test_multiclass_score_columns_without_class_names_warn(tmp_path: Path) -> None:
    """[silent] Columns that name no class are taken in sorted order, and the user is told."""
    path, _, _ = _multiclass(tmp_path)
    args = ["eval", path, "--task", "multiclass", "--true", "y", "--metric", "roc_auc"]
    done = scorekit(*args, "--score", "s1", "s2", "s3")
    assert done.returncode == 0
    assert "s1=bird, s2=cat, s3=dog" in done.stderr and "--classes" in done.stderr
    unclear = scorekit(*args, "--score", "s1", "s2", "p_cat")
    assert_clean_error(unclear, "cannot tell which score column holds which class", "s1, s2")
    wrong = scorekit(
        *args, "--score", "p_dog", "p_bird", "p_cat", "--classes", "bird", "cat", "dog"
    )
    assert_clean_error(wrong, "contradict the score columns' names")


# ROUGE on text the default tokenizer cannot see -----------------------------------------


def test_rouge_on_chinese_text_warns_and_offers_the_unicode_tokenizer(tmp_path: Path) -> None:
    """[silent] ROUGE on Chinese text from the CLI scored 0 with no warning."""
    refs = write(tmp_path / "refs.txt", ["今天天气很好", "我喜欢猫"])
    hyps = write(tmp_path / "hyps.txt", ["今天天气不错", "我喜欢狗"])
    args = ["text", "--refs", refs, "--hyps", hyps, "-m", "rouge1", "--format", "json"]
    done = scorekit(*args)
    assert done.returncode == 0
    assert json.loads(done.stdout)["rouge1:fmeasure"] == 0.0
    assert "no tokens under the default tokenizer" in done.stderr
    assert "--tokenizer unicode" in done.stderr
    unicode = scorekit(*args, "--rouge-tokenizer", "unicode")
    assert json.loads(unicode.stdout)["rouge1:fmeasure"] > 0.5
    assert "warning" not in unicode.stderr


def test_save_state_to_stdout_through_a_pipe(tmp_path: Path) -> None:
    """[lost] ``--save-state /dev/stdout`` into a pipe failed: the link was resolved to a
    pipe's name under /proc, and a temporary file was made beside it."""
    done = scorekit(
        "eval", _data(tmp_path), *EVAL, "--metric", "accuracy", "--save-state", "/dev/stdout"
    )
    assert done.returncode == 0, done.stderr
    assert '"scorekit_states": 1' in done.stdout
