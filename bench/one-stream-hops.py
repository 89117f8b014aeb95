#!/usr/bin/env python3
"""Where the router's time goes on one request's way to its first token, hop by hop.

Reads `perf script` output of a system-wide syscall trace taken while `bench/run.sh sweep --levels 1
--arms narwhal` runs, and prints, for the router's busiest event loop, how long it spent between
each message in and the message out that it caused (its own work, cache misses included, with
no wake-up in it):

  A  the client's request received        -> the prefill request sent
  B  the prefill answer received          -> the decode request sent
  C  the decode leg's first token received -> the client's first bytes sent
  and, for every later token, its receive -> its send to the client.

Take the trace with perf on the engines' CPU, so it never runs on the router's (CPU 1 pinned):

  taskset -c 0 perf record -a -o hops.data \
      -e raw_syscalls:sys_enter --exclude-perf -e raw_syscalls:sys_exit --exclude-perf -- sleep 30
  perf script -i hops.data -F comm,pid,tid,cpu,time,event,trace > hops.txt
  bench/one-stream-hops.py hops.txt

Messages are told apart by size with the harness's defaults (128-word prompts, 64 tokens): the
client's request is 800-1,000 bytes, the prefill answer 300 or more, a token 250-320.
"""
import collections
import re
import sys

LINE = re.compile(r'^\s*(.+?)\s+(\d+)/(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+)\s*(.*)$')
RECVFROM, SENDTO, WRITEV, WRITE = 45, 44, 20, 1
SENDS = (SENDTO, WRITEV, WRITE)


def syscalls_by_loop_thread(path):
    """(entered us, exited us, number, fd, result) per router event-loop thread."""
    calls = collections.defaultdict(list)
    open_calls = {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if not m or not m.group(1).startswith('multiThreadIoEv'):
                continue
            _, _, tid, _, t, event, rest = m.groups()
            t = float(t) * 1e6
            if event == 'raw_syscalls:sys_enter:':
                call = re.match(r'NR (\d+) \((\w+),', rest)
                open_calls[tid] = (t, int(call.group(1)), call.group(2))
            elif event == 'raw_syscalls:sys_exit:' and tid in open_calls:
                entered, number, fd = open_calls.pop(tid)
                calls[tid].append((entered, t, number, fd, int(rest.split('=')[1])))
    return calls


def next_send(seq, i, not_fd=None):
    while not (seq[i][2] in SENDS and seq[i][3] != not_fd):
        i += 1
    return i


def hops(seq):
    out = collections.defaultdict(list)
    for i, (_, received, number, _, size) in enumerate(seq):
        if number != RECVFROM or not 800 < size < 1000:
            continue
        try:
            j = next_send(seq, i + 1)
            prefill_fd = seq[j][3]
            k = j + 1
            while not (seq[k][2] == RECVFROM and seq[k][3] == prefill_fd and seq[k][4] >= 300):
                k += 1
            m = next_send(seq, k + 1)
            decode_fd = seq[m][3]
            n = next_send(seq, m + 1, not_fd=decode_fd)
            r = n - 1
            while seq[r][2] != RECVFROM:
                r -= 1
        except IndexError:
            break  # the trace ended mid-request
        a, b, c = seq[j][0] - received, seq[m][0] - seq[k][1], seq[n][0] - seq[r][1]
        out['A request in -> prefill out'].append(a)
        out['B prefill answer in -> decode out'].append(b)
        out['C first token in -> client out'].append(c)
        out['A + B + C'].append(a + b + c)
    for prev, cur in zip(seq, seq[1:]):
        if prev[2] == RECVFROM and 250 < prev[4] < 320 and cur[2] == SENDTO:
            out['token in -> token out'].append(cur[0] - prev[1])
    return out


def main():
    calls = syscalls_by_loop_thread(sys.argv[1])
    if not calls:
        sys.exit('no router event-loop thread (multiThreadIoEv...) in the trace')
    loop = max(calls, key=lambda tid: len(calls[tid]))
    for name, values in hops(calls[loop]).items():
        v = sorted(values)
        print(f'{name:36s} n={len(v):5d}  p10 {v[len(v) // 10]:7.1f}  p50 {v[len(v) // 2]:7.1f}'
              f'  p90 {v[9 * len(v) // 10]:7.1f} us')


if __name__ == '__main__':
    main()
