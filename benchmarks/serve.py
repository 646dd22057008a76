"""Load benchmark of ``kumo-gym serve``: concurrent WebSocket sessions playing whole episodes, the
way a trainer's rollout workers use the server.

For each environment (KUMO easy: interactive, about three moves and a fresh instance per episode;
Tents easy: answer mode, one answer per episode), each number of server worker processes
(``--workers``, default 1 and 2) and each number of concurrent sessions (``--sessions``, default
1, 16, 64, 256), the script starts ``kumo-gym serve ENV --difficulty easy --workers W`` with
every other setting at its default on a free loopback port, opens all the sessions at once, and
lets each play episodes back to back: ``reset(seed)``, then the oracle's moves, worked out in
this process beforehand (the load generator does no puzzle work while timed). Once every session
has finished an episode (a warm-up, so that episodes end at a steady rate rather than all at
once), a window of ``--seconds`` counts the episodes and calls that end in it.

Per cell: episodes/s; p50/p95/p99 of one call (a reset or a step, from sending the message to
reading the reply); errors (failed calls, refused sessions, error replies); the server's CPU
(user+system of every server process, from /proc, as cores used and as ms per episode) beside
the client's; the server's memory with all the sessions open (RSS summed over its processes, and
PSS, which counts shared pages once). Every episode played is then checked against the same
episode played in-process (instance id, and each step's feedback, reward, status and end): the
"mismatch" column must be 0.

Reference, in the same run: openenv-core's own server (``create_fastapi_app``: one process,
one event loop, a thread per session, environments run on those threads) serving the same
environment (``KumoGymEnvironment``), which is what ``kumo-gym serve`` was before it had its own
server; ``max_concurrent_envs=1024``, so that its default limit of 1 does not refuse sessions.

The machine this runs on has 2 cores, shared by the server and the load generator. Where the
kernel's autogroup scheduling is on (``sched_autogroup`` in the JSON), the whole run gets one
share of the CPU beside every other busy login session on the machine, so more worker processes
do not get it more CPU unless the run's group is given priority (as root:
``echo -20 > /proc/<pid of this script>/autogroup`` right after starting it; ``autogroup_nice`` in
the JSON); ``server cores`` says what the server got. What 16 cores would give is
projected from the median server CPU per episode at 64 and 256 sessions (``projection_16_cores``
in the JSON: 16 workers, the load generator elsewhere) and is labelled as a projection.

Prints a table and writes ``benchmarks/results/serve.json``. Linux only (/proc).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import resource
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _common import print_table, write_result

ENVS = {"KUMO easy": ("kumo_gym/KUMO-v0", {"difficulty": "easy"}),
        "Tents easy": ("kumo_gym/Tents-v0", {"difficulty": "easy"})}
TICK = os.sysconf("SC_CLK_TCK")
CALL_TIMEOUT_S = 30  # a call unanswered this long counts as an error

REFERENCE_SERVER = r"""
import json, sys
import uvicorn
from openenv.core.env_server import create_fastapi_app
from kumo_gym.integrations.openenv import KumoGymAction, KumoGymEnvironment, KumoGymObservation
env_id, kw, port = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
app = create_fastapi_app(lambda: KumoGymEnvironment(env_id, kw), KumoGymAction, KumoGymObservation, max_concurrent_envs=1024)
uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
"""


# --- the episodes to play ---------------------------------------------------------------------

def plan_episodes(env_id: str, kw: dict, seeds: int) -> list[dict]:
    """Seeds 0..seeds-1 played in-process: the oracle's moves and what each reply must say."""
    import gymnasium as gym

    import kumo_gym  # noqa: F401
    from kumo_gym.training.agents import OracleAgent
    from kumo_gym.wrappers.chat import ChatEnv

    chat = ChatEnv(gym.make(env_id, **kw))
    plans = []
    for seed in range(seeds):
        _, info = chat.reset(seed=seed)
        agent = OracleAgent()
        agent.bind(chat.unwrapped)
        moves, replies, done = [], [], False
        while not done:
            move = agent.reply()
            _, reward, term, trunc, info = chat.step(move)
            done = bool(term or trunc)
            moves.append(move)
            replies.append((info["feedback"], float(reward), info.get("status", (info.get("verdict") or {}).get("status")),
                            done))
        plans.append({"seed": seed, "instance_id": str(chat.unwrapped.instance.instance_id), "moves": moves,
                      "replies": replies})
    return plans


# --- servers --------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(env_id: str, kw: dict, workers: int | None) -> tuple[subprocess.Popen, str]:
    """``kumo-gym serve`` (workers given) or the reference server (workers None); its URL once healthy."""
    port = free_port()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    if workers is None:
        cmd = [sys.executable, "-c", REFERENCE_SERVER, env_id, json.dumps(kw), str(port)]
    else:
        cmd = [sys.executable, "-m", "kumo_gym.cli", "serve", env_id, "--port", str(port), "--workers", str(workers),
               "--env-kwargs", *[f"{k}={v}" for k, v in kw.items()]]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(url + "/health", timeout=2) as r:
                if r.status == 200:
                    return proc, url
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"server did not start: {' '.join(cmd[:6])}\n{proc.communicate()[1][-2000:]}")


def stop_server(proc: subprocess.Popen) -> str:
    proc.terminate()
    try:
        return proc.communicate(timeout=30)[1]
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.communicate()[1]


def process_tree(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, []))
    return tree


def cpu_seconds(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICK


def memory_mb(pids: list[int]) -> tuple[float, float]:
    """(RSS, PSS) in MB summed over ``pids``."""
    rss = pss = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Rss:"):
                    rss += int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss += int(line.split()[1])
        except OSError:
            continue
    return rss / 1024, pss / 1024


# --- the load -------------------------------------------------------------------------------

async def run_cell(url: str, plans: list[dict], sessions: int, seconds: float, server_pid: int) -> dict:
    """All sessions open, then playing; after a warm-up in which every session finishes an episode
    (so that episodes end at a steady rate, not all at once), a window of ``seconds`` counts the
    episodes and calls that end in it."""
    from websockets.asyncio.client import connect

    ws_url = url.replace("http://", "ws://") + "/ws"
    latencies: list[float] = []
    played: list[tuple[int, str, list]] = []
    errors: list[str] = []
    go = asyncio.Event()
    window = {"start": float("inf"), "end": float("inf"), "stop": False}
    connected, warmed, counted = [0], set(), [0]

    def in_window(t: float) -> bool:
        return window["start"] <= t < window["end"]

    async def call(ws, message: dict) -> dict:
        t = time.perf_counter()
        await ws.send(json.dumps(message))
        reply = json.loads(await asyncio.wait_for(ws.recv(), CALL_TIMEOUT_S))
        done = time.perf_counter()
        if in_window(done):
            latencies.append(done - t)
        if reply.get("type") == "error":
            raise RuntimeError(reply["data"].get("message"))
        return reply["data"]

    async def one_session(index: int) -> None:
        ws, k = None, 0
        while not window["stop"]:
            try:
                if ws is None:
                    ws = await connect(ws_url, max_size=2**26, proxy=None, open_timeout=120)
                if not go.is_set():
                    connected[0] += 1
                    await go.wait()
                plan = plans[(index + k * sessions) % len(plans)]
                k += 1
                first = await call(ws, {"type": "reset", "data": {"seed": plan["seed"]}})
                replies = []
                for move in plan["moves"]:
                    r = await call(ws, {"type": "step", "data": {"text": move}})
                    obs = r["observation"]
                    replies.append((obs["text"], float(r["reward"]), obs["status"], bool(r["done"])))
                played.append((plan["seed"], first["observation"]["instance_id"], replies))
                warmed.add(index)
                if in_window(time.perf_counter()):
                    counted[0] += 1
            except Exception as e:  # noqa: BLE001 - every failure is counted, and the session goes on
                if in_window(time.perf_counter()) or not go.is_set():
                    errors.append(f"{type(e).__name__}: {e}"[:200])
                if ws is not None:
                    await ws.close()
                ws = None
                if not go.is_set():
                    connected[0] += 1
                    await go.wait()
                await asyncio.sleep(0.05)
        if ws is not None:
            await ws.close()

    tasks = [asyncio.create_task(one_session(i)) for i in range(sessions)]
    while connected[0] < sessions:
        await asyncio.sleep(0.05)
    pids = process_tree(server_pid)
    go.set()
    warm_deadline = time.perf_counter() + 60
    while len(warmed) < sessions and time.perf_counter() < warm_deadline:
        await asyncio.sleep(0.05)
    rss, pss = memory_mb(pids)
    cpu0, client0, t0 = cpu_seconds(pids), resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    window["start"], window["end"] = t0, t0 + seconds
    await asyncio.sleep(seconds)
    wall = time.perf_counter() - t0
    cpu1, client1 = cpu_seconds(pids), resource.getrusage(resource.RUSAGE_SELF)
    window["stop"] = True
    await asyncio.gather(*tasks)
    try:
        health = await asyncio.to_thread(lambda: json.loads(urllib.request.urlopen(url + "/health", timeout=60).read()))
    except OSError as e:  # a server whose loop is stuck: said in the row
        health = {"error": f"{type(e).__name__}: {e}"}

    expected = {p["seed"]: p for p in plans}
    mismatches = sum(1 for seed, instance_id, replies in played
                     if instance_id != expected[seed]["instance_id"] or replies != expected[seed]["replies"])
    lat = np.array(latencies) * 1e3 if latencies else np.array([float("nan")])
    client_cpu = (client1.ru_utime - client0.ru_utime) + (client1.ru_stime - client0.ru_stime)
    episodes = counted[0]
    return {"sessions": sessions, "episodes": episodes, "seconds": round(wall, 2),
            "episodes_per_s": round(episodes / wall, 1), "calls": len(latencies),
            "p50_ms": round(float(np.percentile(lat, 50)), 2), "p95_ms": round(float(np.percentile(lat, 95)), 2),
            "p99_ms": round(float(np.percentile(lat, 99)), 2), "errors": len(errors), "error_examples": errors[:3],
            "server_cores": round((cpu1 - cpu0) / wall, 2), "client_cores": round(client_cpu / wall, 2),
            "server_cpu_ms_per_episode": round((cpu1 - cpu0) * 1e3 / episodes, 2) if episodes else None,
            "server_rss_mb": round(rss, 1), "server_pss_mb": round(pss, 1), "server_processes": len(pids),
            "episodes_checked": len(played), "mismatches": mismatches,
            "health_after": {k: health.get(k) for k in ("sessions", "max_sessions", "workers", "error") if k in health}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--envs", nargs="*", default=list(ENVS), choices=list(ENVS))
    ap.add_argument("--workers", nargs="*", type=int, default=[1, 2])
    ap.add_argument("--sessions", nargs="*", type=int, default=[1, 16, 64, 256])
    ap.add_argument("--seconds", type=float, default=8.0, help="timed seconds per cell")
    ap.add_argument("--seeds", type=int, default=256, help="distinct episodes planned per environment")
    ap.add_argument("--no-reference", action="store_true", help="skip openenv-core's own server")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "serve.json"))
    args = ap.parse_args(argv)
    load_start = os.getloadavg()[0]

    rows = []
    for name in args.envs:
        env_id, kw = ENVS[name]
        t = time.perf_counter()
        plans = plan_episodes(env_id, kw, args.seeds)
        print(f"{name}: {len(plans)} episodes planned in {time.perf_counter() - t:.1f} s "
              f"({np.mean([len(p['moves']) for p in plans]):.2f} steps each)", flush=True)
        servers = [("kumo-gym serve", w) for w in args.workers]
        if not args.no_reference and name == "KUMO easy":
            servers.append(("openenv-core server", None))
        # every server up at once, the cells interleaved: a change in the machine's load between
        # cells hits the servers alike
        running = []
        try:
            for server, workers in servers:
                running.append((server, workers, *start_server(env_id, kw, workers)))
            stuck = set()
            for sessions in args.sessions:
                for server, workers, proc, url in running:
                    if url in stuck:
                        rows.append({"env": name, "server": server, "workers": workers or 1, "sessions": sessions,
                                     "skipped": "the server stopped answering in a smaller cell"})
                        continue
                    row = asyncio.run(run_cell(url, plans, sessions, args.seconds, proc.pid))
                    if "error" in row["health_after"]:
                        stuck.add(url)
                    row = {"env": name, "server": server, "workers": workers or 1, **row,
                           "load_avg_1m": os.getloadavg()[0]}
                    rows.append(row)
                    print(f"  {server:20s} workers={workers or 1} sessions={sessions:4d}: {row['episodes_per_s']:7.1f} "
                          f"episodes/s  p99 {row['p99_ms']:8.1f} ms  errors {row['errors']}  server "
                          f"{row['server_cores']} cores  client {row['client_cores']}  RSS {row['server_rss_mb']:.0f} MB  "
                          f"mismatches {row['mismatches']}", flush=True)
        finally:
            for *_, proc, _url in running:
                stop_server(proc)

    rows.sort(key=lambda r: (r["env"], r["server"] != "kumo-gym serve", r["workers"], r["sessions"]))
    print()
    print_table([("env", "<11"), ("server", "<20"), ("workers", ">7"), ("sessions", ">8"), ("episodes/s", ">10.1f"),
                 ("p50 ms", ">8.1f"), ("p95 ms", ">8.1f"), ("p99 ms", ">8.1f"), ("errors", ">6"),
                 ("server cores", ">12.2f"), ("client cores", ">12.2f"), ("RSS MB", ">7.0f"), ("PSS MB", ">7.0f"),
                 ("mismatch", ">8")],
                [(r["env"], r["server"], r["workers"], r["sessions"], r["episodes_per_s"], r["p50_ms"], r["p95_ms"],
                  r["p99_ms"], r["errors"], r["server_cores"], r["client_cores"], r["server_rss_mb"],
                  r["server_pss_mb"], r["mismatches"]) for r in rows if "skipped" not in r])
    for r in rows:
        if "skipped" in r:
            print(f"{r['env']}  {r['server']}  {r['sessions']} sessions: skipped ({r['skipped']})")

    projection = {}
    for name in args.envs:
        ours = [r for r in rows if r["env"] == name and r["server"] == "kumo-gym serve" and r["sessions"] >= 64
                and r["server_cpu_ms_per_episode"]]
        if ours:
            ms = float(np.median([r["server_cpu_ms_per_episode"] for r in ours]))
            projection[name] = {"server_cpu_ms_per_episode": ms, "episodes_per_s_per_core": round(1e3 / ms, 1),
                                "episodes_per_s_16_workers": round(16 * 1e3 / ms),
                                "assumes": "16 worker processes on 16 free cores, the load generator on other "
                                           "machines, work per episode as measured here (no shared state between "
                                           "workers but the session counter)"}
            print(f"\n{name}: {ms:.1f} server CPU ms per episode -> about {1e3 / ms:.0f} episodes/s per core; "
                  f"16 workers on 16 free cores: about {16e3 / ms:,.0f} episodes/s (projection)")
    result = {"benchmark": "serve", "python": platform.python_version(), "machine": platform.machine(),
              "cpus": os.cpu_count(), "load_avg_1m_start": load_start, "seconds_per_cell": args.seconds,
              "method": "kumo-gym serve ENV --difficulty easy --workers W (other settings default) on loopback, "
                        "every server of an environment up at once and the cells interleaved; one asyncio client process with one websockets connection per session, all open before the "
                        "timed window; each session plays reset(seed) + the oracle's moves back to back; latency = "
                        "send to reply of one call; server CPU from /proc over every server process; mismatches = "
                        "episodes whose replies differ from the same episode played in-process; after a warm-up in which every "
                        "session finishes an episode, the window counts the episodes and calls that end in it; a call "
                        f"unanswered for {CALL_TIMEOUT_S} s is an error",
              "rows": rows, "projection_16_cores": projection}
    result["load_avg_1m_end"] = os.getloadavg()[0]
    try:  # with autogroup on, the kernel gives each login session (this run: client and servers together) one share
        result["sched_autogroup"] = Path("/proc/sys/kernel/sched_autogroup_enabled").read_text().strip() == "1"
    except OSError:
        result["sched_autogroup"] = None
    try:  # "/autogroup-N nice K": raising the run's group priority (echo -20 > /proc/PID/autogroup, as root) gives it the cores
        result["autogroup_nice"] = int(Path("/proc/self/autogroup").read_text().split()[-1])
    except (OSError, ValueError, IndexError):
        result["autogroup_nice"] = None
    write_result(args.out, result, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
