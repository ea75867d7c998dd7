#!/usr/bin/env python3
"""A model of `trainbench-cli run --mpi` on many ranks: can rank 0 keep N workers busy? (issue 30)

Rank 0 is one server that handles one message at a time. Each message it receives or sends costs it
--service-us microseconds: the figure `run --mpi` prints on its last line ("rank 0: … µs a message",
rank 0's CPU time over every message in and out — its poll loop, decoding, the database writer
thread — so an upper bound of the cost of one more message). Workers train cells of a given mean
length (log-normal, --cv), and rank 0 hands them out with the rule of core/cluster/MpiRootExecutor:
a batch is about 50 ms of cells (at most 256, at most left / (2 × workers)), one cell until the
first has been timed; a worker whose cells in hand are expected to take less than 25 ms gets its
next batch in advance. Per cell a worker sends:
  - noise sweeps: its result (one message);
  - learning curves, param sweeps, papers' tables: a request for its run row, which the worker
    waits for (rank 0 answers it: one message in, one out), then its checkpoints — those logged
    within 20 ms of the previous message go together, so at most one message per 20 ms — the
    run's end and the result (non-blocking; modelled as arriving together at the cell's end);
and every worker sends a heartbeat a second. A message takes --latency-us to arrive.

Printed per case and rank count: the time of the hand-out and training alone (start-up not
included), the efficiency (cell seconds / (workers × that time)), rank 0's utilisation, and the
shortest mean cell that keeps rank 0 at most half busy (2 × workers × messages per cell × cost
/ (1 − heartbeat load)) — shorter cells make rank 0 the bottleneck.

  bench/mpi_handout.py [--service-us 25] [--ranks 3 100 1000] [--latency-us 20] [--cv 0.2] [--seed 1]
"""
import argparse
import heapq
import math
import random
from collections import deque

BATCH_SECONDS = 0.05
REFILL_SECONDS = BATCH_SECONDS / 2
MAX_BATCH = 256


def simulate(workers, cells, mean, cv, per_cell_in, rows, service, latency, seed):
    """Returns (makespan, efficiency, root utilisation) of `cells` cells on `workers` workers."""
    rng = random.Random(seed)
    sigma = math.sqrt(math.log(1 + cv * cv))
    mu = math.log(mean) - sigma * sigma / 2
    duration = [rng.lognormvariate(mu, sigma) if cv > 0 else mean for _ in range(cells)]

    events = []  # (time, order, kind, worker, payload)
    order = 0

    def push(t, kind, w=-1, payload=None):
        nonlocal order
        order += 1
        heapq.heappush(events, (t, order, kind, w, payload))

    root_free = 0.0  # rank 0 handles messages in arrival order, one at a time
    root_busy = 0.0

    def root_handles(arrival, messages_in, messages_out=0):
        """Rank 0 handles `messages_in` that arrived at `arrival` and sends `messages_out`;
        returns when it is done."""
        nonlocal root_free, root_busy
        start = max(arrival, root_free)
        cost = (messages_in + messages_out) * service
        root_free = start + cost
        root_busy += cost
        return root_free

    nxt = 0
    left = cells
    mean_seen = -1.0
    queue = [deque() for _ in range(workers)]   # cells handed to each worker, not yet finished
    waiting = [True] * workers                  # idle until a batch arrives
    in_flight = [False] * workers               # a batch is on its way (sent, not yet arrived)

    def batch_size():
        if mean_seen < 0:
            return 1
        return max(1, min(int(BATCH_SECONDS / max(mean_seen, 1e-6)), min(MAX_BATCH, max(1, left // (2 * workers)))))

    def hand_out(w, t):
        """Rank 0, done handling a message at t, sends worker w a batch if it needs one."""
        nonlocal nxt, left
        if left == 0 or in_flight[w]:
            return t
        held = len(queue[w])
        if not (held == 0 or (mean_seen >= 0 and mean_seen * held < REFILL_SECONDS)):
            return t
        k = min(batch_size(), left)
        batch = list(range(nxt, nxt + k))
        nxt += k
        left -= k
        done = root_handles(t, 0, 1)
        in_flight[w] = True
        push(done + latency, "batch", w, batch)
        return done

    def start_cell(w, t):
        c = queue[w][0]
        if rows:  # the run's row: one round trip to rank 0, answered before anything else
            done = root_handles(t + latency, 1, 1)
            t = done + latency
        push(t + duration[c], "cell_end", w, c)

    # Every worker greets rank 0 at time 0; rank 0 answers each greeting with its first batch.
    for w in range(workers):
        t = root_handles(latency, 1)
        hand_out(w, t)
    heartbeat_every = 0.01  # the heartbeats of all workers, as one chunk of work every 10 ms
    push(heartbeat_every, "heartbeats")
    finished = 0
    end = 0.0
    while events:
        t, _, kind, w, payload = heapq.heappop(events)
        if kind == "heartbeats":
            if finished < cells:
                root_handles(t, workers * heartbeat_every)
                push(t + heartbeat_every, "heartbeats")
            continue
        if kind == "batch":
            in_flight[w] = False
            queue[w].extend(payload)
            if waiting[w]:
                waiting[w] = False
                start_cell(w, t)
            continue
        # cell_end: the worker sends its messages of this cell and begins the next one it holds
        c = queue[w].popleft()
        finished += 1
        end = max(end, t)
        seen = duration[c]
        mean_seen = seen if mean_seen < 0 else 0.8 * mean_seen + 0.2 * seen
        handled = root_handles(t + latency, per_cell_in - (1 if rows else 0))
        if queue[w]:
            start_cell(w, t)
        else:
            waiting[w] = True
        hand_out(w, handled)  # a worker's need changes only when one of its cells ends
    makespan = max(end, root_free)
    return makespan, sum(duration) / (workers * makespan), root_busy / makespan


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--service-us", type=float, default=25.0,
                    help="rank 0's CPU microseconds a message, from `run --mpi`'s last line (default 25: "
                         "the noise sweep of bench/mpi_scaling.sh on the 2-core development machine, "
                         "bench/README.md)")
    ap.add_argument("--ranks", type=int, nargs="+", default=[3, 100, 1000])
    ap.add_argument("--latency-us", type=float, default=20.0, help="one message's way (default 20)")
    ap.add_argument("--cv", type=float, default=0.2, help="cell lengths' coefficient of variation (default 0.2)")
    ap.add_argument("--cells-per-worker", type=int, default=40,
                    help="cells per worker for the short cases (default 40: a steady state)")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    s = a.service_us * 1e-6
    lat = a.latency_us * 1e-6
    def with_rows(mean, checkpoints):
        """Messages in per cell of a run with a row: its request, its checkpoint messages, its end, its result."""
        return 1 + min(checkpoints, math.ceil(mean / 0.02)) + 1 + 1

    # (name, mean cell seconds, messages in per cell, cells need a run row, cells: None = per worker)
    cases = [
        ("noise sweep, 0.8 ms cells (mpi_scaling.sh)", 0.0008, 1, False, None),
        ("noise sweep, 50 ms cells", 0.05, 1, False, None),
        ("learning curve, 0.26 s cells, 100 checkpoints (mpi_scaling.sh)", 0.26, with_rows(0.26, 100), True, None),
        ("block-layer tables: 400 cells of 150 s, 100 checkpoints", 150.0,
         with_rows(150.0, 100), True, 400),
    ]
    print(f"rank 0: {a.service_us:g} µs a message ({1 / s:,.0f} messages/s at most); latency {a.latency_us:g} µs; "
          f"cell lengths log-normal, cv {a.cv:g}")
    print(f"{'case':<62} {'ranks':>6} {'cells':>7} {'seconds':>9} {'efficiency':>10} {'rank 0 busy':>11} "
          f"{'rank 0 ≤ 50 % busy from':>24}")
    for name, mean, per_in, rows, fixed in cases:
        per_msgs = per_in + (1 if rows else 0)  # + the row id rank 0 sends back
        for ranks in a.ranks:
            w = ranks - 1
            cells = fixed if fixed else a.cells_per_worker * w
            span, eff, util = simulate(w, cells, mean, a.cv, per_in, rows, s, lat, a.seed)
            heartbeat_load = w * s  # one heartbeat a second from each worker
            need = (2 * w * per_msgs * s / (1 - heartbeat_load)) if heartbeat_load < 1 else math.inf
            print(f"{name:<62} {ranks:>6} {cells:>7} {span:>9.3f} {100 * eff:>9.1f}% {100 * util:>10.1f}% "
                  f"{need * 1e3:>21.1f} ms")


if __name__ == "__main__":
    main()
