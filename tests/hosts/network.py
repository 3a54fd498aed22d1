"""The lab's network: the balancer's namespace, a veth pair into each host, and a thread inside it.

Nothing here adds a link or an address to the root namespace, where other programs (browsers of
other test runs among them) would see the change and drop their connections. ``lab-lb`` holds its
own ``lo`` (HAProxy on 127.0.0.1, the lab's browser, the load client) and one end of every host's
veth pair, made there directly (``ip -n lab-lb link add ... peer ... netns lab-hA``), so the pair
never appears in the root namespace; the links stay up until the lab ends, since a change in
``lab-lb`` would make the browser there drop its connections too. ``NamespaceThread`` runs
Python calls in a thread that entered ``lab-lb`` (``setns``): the sockets those calls open belong
to that namespace.
"""

from __future__ import annotations

import concurrent.futures
import ctypes
import os
import re
from collections.abc import Callable
from typing import TypeVar

from tests.hosts.machine import LB_NAMESPACE, LabUnavailable, run_command

CLONE_NEWNET = 0x40000000  # setns(2): the namespace is a network namespace
LIFETIMES = re.compile(r"\s*(valid|preferred)_lft \S+")
T = TypeVar("T")


def make_balancer_namespace() -> None:
    """``lab-lb`` with its loopback up: where HAProxy listens on 127.0.0.1."""
    run_command("ip", "netns", "add", LB_NAMESPACE)
    run_command("ip", "-n", LB_NAMESPACE, "link", "set", "lo", "up")


def make_host_namespace(namespace: str, link: str, gateway: str, address: str) -> None:
    """The host's namespace and its veth pair: ``link`` in ``lab-lb`` with ``gateway``/30, its
    peer ``link``-in in the host with ``address``/30, and the host's default route via
    ``gateway``: every address of ``lab-lb`` (the other hosts' gateways too) through it."""
    inner = f"{link}-in"
    run_command("ip", "netns", "add", namespace)
    lb = ("ip", "-n", LB_NAMESPACE)
    run_command(*lb, "link", "add", link, "type", "veth", "peer", "name", inner, "netns", namespace)
    ns = ("ip", "-n", namespace)
    # no IPv6 link-local address, whose duplicate check would change the address list later
    run_command(*lb, "link", "set", link, "addrgenmode", "none")
    run_command(*ns, "link", "set", inner, "addrgenmode", "none")
    run_command(*lb, "addr", "add", f"{gateway}/30", "dev", link)
    run_command(*lb, "link", "set", link, "up")
    run_command(*ns, "addr", "add", f"{address}/30", "dev", inner)
    run_command(*ns, "link", "set", inner, "up")
    run_command(*ns, "link", "set", "lo", "up")
    run_command(*ns, "route", "add", "default", "via", gateway)


def in_namespace(command: list[str], namespace: str = LB_NAMESPACE) -> list[str]:
    """``command`` as run inside ``namespace`` (``ip netns exec``, which then execs it: the
    process is the command itself, with the same pid)."""
    return ["ip", "netns", "exec", namespace, *command]


def links_and_addresses(namespace: str | None = None) -> list[str]:
    """Every link and address of a namespace (the root one by default), one line each, the
    addresses' lifetimes left out: two snapshots are equal when nothing was added, removed,
    brought up or down."""
    prefix = ("ip", "-n", namespace) if namespace else ("ip",)
    lines = run_command(*prefix, "-o", "link", "show").splitlines()
    lines += run_command(*prefix, "-o", "addr", "show").splitlines()
    return sorted(LIFETIMES.sub("", " ".join(line.split())) for line in lines)


def namespace_pids(namespace: str) -> list[int]:
    """The processes that run in ``namespace``."""
    return [int(p) for p in run_command("ip", "netns", "pids", namespace, check=False).split()]


def _enter(namespace: str) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(f"/run/netns/{namespace}", os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            errno = ctypes.get_errno()
            raise OSError(errno, f"setns into {namespace}: {os.strerror(errno)}")
    finally:
        os.close(fd)


class NamespaceThread:
    """One thread of this process inside a network namespace; ``call`` runs a function there
    and returns what it returns (or raises what it raised)."""

    def __init__(self, namespace: str = LB_NAMESPACE) -> None:
        self.namespace = namespace
        self._failed: list[OSError] = []
        self._pool = concurrent.futures.ThreadPoolExecutor(
            1, thread_name_prefix=namespace, initializer=self._start
        )
        try:
            self.call(os.getpid)
        except concurrent.futures.BrokenExecutor:
            self._pool.shutdown()
            raise LabUnavailable(f"no thread in {namespace}: {self._failed}") from None

    def _start(self) -> None:
        try:
            _enter(self.namespace)
        except OSError as err:
            self._failed.append(err)
            raise

    def call(self, function: Callable[..., T], *args: object) -> T:
        return self._pool.submit(function, *args).result()

    def close(self) -> None:
        """Let the thread end after the call it runs, if any (without waiting for it: a lab
        interrupted in the middle of a call tears down at once)."""
        self._pool.shutdown(wait=False, cancel_futures=True)
