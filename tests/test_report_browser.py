"""Every kind of report, opened from disk in headless Chromium as a person would open it.

Each report loads with no console error, no request of any kind (no resource
in the page's performance entries, no Content-Security-Policy violation, no
connection to the proxy every request of the browser is sent to), every
figure has a box of non-zero size, and a class named like a script shows as
text. A screenshot of each goes to ``build/screenshots/``. Skipped, with the
reason, where no Chromium is installed (``.ci/run`` installs Debian's
``chromium``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("matplotlib")
pytest.importorskip("jinja2")

import scorekit
from scorekit import api, qa, stats, throughput
from scorekit.classification import ExpectedCalibrationError
from scorekit.report import render
from scorekit.text import read_parallel

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "examples" / "data"
SHOTS = ROOT / "build" / "screenshots"
HOSTILE = "<script>alert(1)</script>"
BROWSER = next(
    (
        found
        for name in ("chromium", "chromium-browser", "google-chrome", "chrome")
        if (found := shutil.which(name))
    ),
    None,
)

pytestmark = pytest.mark.skipif(
    BROWSER is None,
    reason="no headless Chromium on PATH: install Debian's chromium package "
    "(apt-get install chromium) to run the browser test of the reports",
)

PROBE_HEAD = """<script>
window.__errors = [];
window.__blocked = [];
window.addEventListener("error", e => window.__errors.push(String(e.message || e.type)), true);
document.addEventListener("securitypolicyviolation", e => window.__blocked.push(e.blockedURI));
for (const level of ["error", "warn"]) {
  const original = console[level];
  console[level] = (...args) => { window.__errors.push(args.join(" ")); original(...args); };
}
</script>"""

PROBE_TAIL = """<script>
(() => {
  const boxes = [...document.querySelectorAll("figure svg")].map(svg => {
    const r = svg.getBoundingClientRect();
    return [r.width, r.height];
  });
  const scripts = document.querySelectorAll("script").length;
  const text = document.body.innerText;
  const out = {
    errors: window.__errors, blocked: window.__blocked, boxes: boxes, scripts: scripts,
    resources: performance.getEntriesByType("resource").map(e => e.name),
    hostile_text: text.includes("<scr" + "ipt>alert(1)</scr" + "ipt>"),
  };
  const pre = document.createElement("pre");
  pre.id = "probe";
  pre.style.display = "none";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"""


class _Proxy:
    """The browser's proxy: a socket that records the first line of every request, answers none.

    The browser's own services (time, updates, accounts) ask too; the test
    checks that no request names a host the report mentions, and the page's
    performance entries and CSP violations show the requests the page made.
    """

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.requests: list[str] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            conn.settimeout(1)
            try:
                line = conn.recv(4096).split(b"\r\n")[0].decode("latin-1")
            except OSError:
                line = "(no request line)"
            if line.strip():
                # a connection closed before sending anything (a browser's preconnect)
                # names no host; every request that does is checked below
                self.requests.append(line)
            conn.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        self.sock.close()


def _reports(tmp: Path) -> dict[str, str]:
    """The HTML of every kind of report."""
    rng = np.random.default_rng(0)
    out: dict[str, str] = {}
    binary = api.evaluate_table(
        str(DATA / "binary.csv"), task="binary", true=["label"], pred=["pred"], score=["score"]
    )
    out["binary"] = render(binary, title="binary", inputs=["binary.csv"])
    y = rng.choice(["cat", "dog", HOSTILE], 120)
    p = rng.dirichlet(np.ones(3), 120)
    pred = np.asarray(sorted(set(y)))[p.argmax(axis=1)]
    multiclass = scorekit.evaluate(
        {"y_true": y, "y_pred": pred, "y_proba": p},
        ["accuracy", ExpectedCalibrationError(method="top_label", labels=tuple(sorted(set(y))))],
    )
    out["multiclass"] = render(multiclass, title=f"multiclass {HOSTILE}", inputs=[HOSTILE])
    regression = api.evaluate_table(
        str(DATA / "regression.csv"),
        task="regression",
        true=["price", "days"],
        pred=["pred_price", "pred_days"],
        metrics=["mae", "r2", "medae", "prediction_sample"],
    )
    out["regression"] = render(regression, title="regression")
    rank = api.evaluate_run(
        str(DATA / "qrels.txt"), str(DATA / "run.txt"), ["ndcg@5", "ndcg@10", "mrr"], per_query=True
    )
    out["rank"] = render(rank, title="rank")
    records = throughput.read_records(DATA / "requests.jsonl")
    report = throughput.report(records, slo="ttft=200ms")
    out["throughput"] = render(report, title="throughput", records=records)
    text = api.evaluate_text(str(DATA / "hyps.txt"), [str(DATA / "refs_a.txt")], ["bleu", "rougeL"])
    hyps, refs = read_parallel(str(DATA / "hyps.txt"), [str(DATA / "refs_a.txt")])
    out["text"] = render(text, title="text", texts=(refs, hyps))
    dataset = json.loads((DATA / "squad_dev.json").read_text(encoding="utf-8"))
    answers = json.loads((DATA / "squad_preds.json").read_text(encoding="utf-8"))
    answers["q1"] = HOSTILE
    squad = {"dataset": dataset, "predictions": answers}
    out["qa"] = render(qa.squad(dataset, answers), title="qa", squad=squad)
    steps = [(f"rate {k}", throughput.report(records.slice(k * 50, 50))) for k in range(3)]
    out["sweep"] = render(report, title="sweep", sweep=steps)
    y = rng.integers(0, 2, 200)
    a, b = (np.where(rng.random(200) < q, y, 1 - y) for q in (0.7, 0.8))
    rows = stats.compare("accuracy", y, a, b, names=["base", HOSTILE], n_resamples=200)
    out["comparison"] = render(rows, title="comparison")
    out["loadtest"] = _loadtest(tmp)
    out["comparison-cli"] = _comparison_cli(tmp, rng)
    return out


def _loadtest(tmp: Path) -> str:
    """The report ``scorekit loadtest --rate A,B --report`` writes of a sweep against a server."""
    from openai_server import OpenAIServer
    from scorekit.cli import main

    server = OpenAIServer(ttft=0.02, interval=0.005).start()
    path = tmp / "loadtest-report.html"
    try:
        argv = ["loadtest", "--url", server.url, "--model", HOSTILE, "--dataset", "random"]
        argv += ["--num-prompts", "4", "--input-len", "6", "--output-len", "3", "--pause", "0"]
        argv += ["--rate", "100,inf", "--slo", "ttft=1s", "--quiet", "--report", str(path)]
        assert main(argv) == 0
    finally:
        server.stop()
    return path.read_text(encoding="utf-8")


def _comparison_cli(tmp: Path, rng: Any) -> str:
    """The report ``scorekit eval --test ... --report`` writes of three systems compared."""
    from scorekit.cli import main

    y = rng.integers(0, 2, 120)
    systems = {
        name: np.where(rng.random(120) < q, y, 1 - y)
        for name, q in (("a", 0.7), ("b", 0.8), ("c", 0.75))
    }
    data = tmp / "systems.csv"
    lines = ["y,a,b,c"] + [
        ",".join(str(int(v[i])) for v in (y, *systems.values())) for i in range(120)
    ]
    data.write_text("\n".join(lines) + "\n")
    path = tmp / "comparison-report.html"
    argv = ["eval", str(data), "--task", "binary", "--true", "y", "--pred", "a", "b", "c"]
    argv += ["--metric", "accuracy", "--test", "randomization", "--n-resamples", "200"]
    assert main([*argv, "--correction", "holm", "--report", str(path)]) == 0
    return path.read_text(encoding="utf-8")


def _open(html: str, path: Path, shot: Path, proxy: int) -> tuple[dict[str, Any], str]:
    csp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
    assert csp in html
    probe = html.replace(csp, csp + "; script-src 'unsafe-inline'", 1)
    probe = probe.replace("<head>", "<head>\n" + PROBE_HEAD, 1)
    probe = probe.replace("</body>", PROBE_TAIL + "\n</body>", 1)
    path.write_text(probe, encoding="utf-8")
    command = [
        str(BROWSER),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--hide-scrollbars",
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-default-browser-check",
        f"--proxy-server=http://127.0.0.1:{proxy}",
        "--proxy-bypass-list=<-loopback>",
        "--enable-logging=stderr",
        "--v=0",
        "--window-size=1100,1500",
        f"--user-data-dir={path.parent / (path.stem + '-profile')}",
        f"--screenshot={shot}",
        "--dump-dom",
        path.as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    found = re.search(r'<pre id="probe"[^>]*>(.*?)</pre>', done.stdout, re.DOTALL)
    assert found, f"no probe in the page; stderr: {done.stderr[-2000:]}"
    raw = found.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    return json.loads(raw), done.stderr


def test_every_report_opens_cleanly_in_chromium(tmp_path):
    SHOTS.mkdir(parents=True, exist_ok=True)
    reports = _reports(tmp_path)
    proxy = _Proxy()
    try:
        with ThreadPoolExecutor(max_workers=min(2, os.cpu_count() or 1)) as pool:
            futures = {
                kind: pool.submit(
                    _open, html, tmp_path / f"{kind}.html", SHOTS / f"{kind}.png", proxy.port
                )
                for kind, html in reports.items()
            }
            seen = {kind: future.result() for kind, future in futures.items()}
    finally:
        proxy.close()
    for line in proxy.requests:
        target = line.split(" ")[1] if " " in line else line
        host = re.sub(r"^[a-z]+://", "", target).split("/")[0].split(":")[0]
        assert not any(host in html for html in reports.values()), line
    for kind, (probe, stderr) in seen.items():
        assert probe["errors"] == [], kind
        assert probe["blocked"] == [], kind
        assert probe["resources"] == [], kind
        assert probe["scripts"] == 2, kind  # the two probe scripts only
        assert probe["boxes"], kind
        assert all(w > 50 and h > 50 for w, h in probe["boxes"]), (kind, probe["boxes"])
        console = [line for line in stderr.splitlines() if "CONSOLE" in line]
        assert console == [], (kind, console)
        shot = SHOTS / f"{kind}.png"
        assert shot.is_file() and shot.stat().st_size > 10_000, kind
    for kind in ("multiclass", "qa", "comparison", "loadtest"):
        assert seen[kind][0]["hostile_text"], kind
