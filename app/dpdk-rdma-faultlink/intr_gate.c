/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dpdk-rdma authors.
 */

/*
 * The interrupt gate: EAL's interrupt thread and the forwarding lcores never
 * touch a memif port at the same time.
 *
 * Why. DPDK 22.11's memif PMD runs its control channel on EAL's interrupt
 * thread. When a peer goes (its socket closes, or it sends DISCONNECT),
 * memif_intr_handler() calls memif_disconnect()
 * (drivers/net/memif/memif_socket.c): it clears ETH_MEMIF_FLAG_CONNECTED,
 * then memif_free_regions() munmap()s the rings and buffers the port shares
 * with its peer, with no synchronisation with an lcore inside
 * rte_eth_rx_burst() or rte_eth_tx_burst() on that port (eth_memif_rx/tx
 * look at the flag once, at entry). An lcore preempted inside a burst then
 * reads or writes unmapped memory: SIGSEGV, and no counters. A peer that
 * comes (memif_connect(): the regions mapped, the rings set, then the flag)
 * is handled there too.
 *
 * How. An interrupt source of our own, an eventfd (RTE_INTR_HANDLE_EXT):
 * written ("kicked"), EAL's epoll wakes the interrupt thread and it calls
 * gate_cb(), which parks it until the lcores let it go. EAL calls its
 * interrupt callbacks one at a time on that one thread, so while it is
 * parked no memif callback runs and the lcores may burst. Between two
 * passes, at most every GATE_PERIOD_US, an lcore opens the gate: gate_cb()
 * returns once no lcore is inside a pass, the interrupt thread handles what
 * is pending (memif's connects and disconnects, with the lcores out of
 * their bursts), and, kicked, comes back to park; the lcores start their
 * next pass only once it is parked again. Several lcores (the wire's two
 * directions) count themselves in and out of their passes (inside); the
 * thread leaves only when it sees the gate open and nobody inside, and an
 * lcore gets in only when it sees the thread parked and the gate shut, both
 * sides storing before they load (sequentially consistent atomics), so one
 * of the two always sees the other.
 *
 * Not an EAL alarm re-armed from its own callback: eal_alarm_callback()
 * (lib/eal/linux/eal_alarm.c) runs every due alarm in one loop before it
 * goes back to epoll_wait(), and an alarm 1 us away is due by the time the
 * callback returns: it would run again at once, the memif sockets never
 * looked at. An eventfd callback returns to eal_intr_process_interrupts(),
 * which handles the rest of what epoll_wait() gave it, then waits again.
 *
 * Only engaged when a port is net_memif: other PMDs' bursts need no gate.
 * When forwarding ends the interrupt thread is let go for good, before the
 * ports are stopped and closed (which it takes part in).
 */

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_interrupts.h>
#include <rte_pause.h>

#include "faultlink.h"

#define GATE_PERIOD_US 1000u  /* the gate opens at most this often, busy or idle */
#define GATE_SPIN_US 20u      /* an lcore waiting for the thread spins so long, then yields */
#define GATE_KICK_US 100u     /* and kicks it again so often while it is not parked */

#define LOAD(v) __atomic_load_n(&(v), __ATOMIC_SEQ_CST)
#define STORE(v, x) __atomic_store_n(&(v), (x), __ATOMIC_SEQ_CST)

static struct {
	bool on;
	int kick_fd;          /* in EAL's epoll: written, the interrupt thread comes to gate_cb */
	int wake_fd;          /* gate_cb sleeps on it: written, it looks again whether it may go */
	struct rte_intr_handle *ih;
	uint64_t period, spin, kick;   /* TSC cycles */
	uint64_t next_open;   /* TSC: the next opening (any lcore) */
	uint32_t parked;      /* 1 while gate_cb holds the interrupt thread */
	uint32_t open;        /* 1: an lcore asked gate_cb to let the thread go */
	uint32_t inside;      /* lcores inside a pass (between fl_gate_enter and fl_gate_leave) */
	uint32_t done;        /* forwarding ended: the thread is never parked again */
} g = { .kick_fd = -1, .wake_fd = -1 };

static void
fd_signal(int fd)
{
	uint64_t one = 1;
	ssize_t r;

	do
		r = write(fd, &one, sizeof(one));
	while (r < 0 && errno == EINTR);
	/* EAGAIN: the counter is huge, it is readable anyway */
}

/* On EAL's interrupt thread, each time kick_fd is written. */
static void
gate_cb(void *arg)
{
	uint64_t v;

	(void)arg;
	/* the kicks that brought it here (non-blocking: EAL does not read an EXT source) */
	while (read(g.kick_fd, &v, sizeof(v)) < 0 && errno == EINTR)
		;
	if (LOAD(g.done))
		return;
	STORE(g.parked, 1);
	while (!LOAD(g.done) && !(LOAD(g.open) && LOAD(g.inside) == 0)) {
		/* blocks until an lcore writes wake_fd: the gate opened, or the last one left */
		if (read(g.wake_fd, &v, sizeof(v)) < 0 && errno != EINTR)
			rte_delay_us_sleep(50);
	}
	STORE(g.parked, 0);
	STORE(g.open, 0);
}

bool
fl_gate_enter(void)
{
	uint64_t start = 0, kicked = 0, now;

	if (!g.on)
		return true;
	for (;;) {
		if (LOAD(g.parked) && !LOAD(g.open)) {
			__atomic_add_fetch(&g.inside, 1, __ATOMIC_SEQ_CST);
			if (!LOAD(g.open) && LOAD(g.parked)) {
				/* a period of forwarding from now, however long the wait */
				if (start != 0)
					__atomic_store_n(&g.next_open, rte_rdtsc() + g.period,
							 __ATOMIC_RELAXED);
				return true;
			}
			fl_gate_leave();        /* it is being let go: wait for the next park */
		}
		if (fl_stop)
			return false;
		now = rte_rdtsc();
		if (start == 0)
			start = now;
		/* a kick lost between two openings (two lcores opening at once) is made again */
		if (!LOAD(g.parked) && now - kicked >= g.kick) {
			fd_signal(g.kick_fd);
			kicked = now;
		}
		if (now - start < g.spin)
			rte_pause();
		else
			sched_yield();          /* the interrupt thread may need this CPU */
	}
}

void
fl_gate_leave(void)
{
	if (!g.on)
		return;
	if (__atomic_sub_fetch(&g.inside, 1, __ATOMIC_SEQ_CST) == 0 && LOAD(g.open))
		fd_signal(g.wake_fd);
}

void
fl_gate_tick(uint64_t now)
{
	if (!g.on || now < __atomic_load_n(&g.next_open, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&g.next_open, now + g.period, __ATOMIC_RELAXED);
	if (!LOAD(g.parked) || __atomic_exchange_n(&g.open, 1, __ATOMIC_SEQ_CST) != 0)
		return;
	if (LOAD(g.inside) == 0)
		fd_signal(g.wake_fd);
	fd_signal(g.kick_fd);   /* come back and park once done: the next pass waits for it */
}

static void
gate_free(void)
{
	if (g.ih != NULL)
		rte_intr_instance_free(g.ih);
	g.ih = NULL;
	if (g.kick_fd >= 0)
		close(g.kick_fd);
	if (g.wake_fd >= 0)
		close(g.wake_fd);
	g.kick_fd = g.wake_fd = -1;
}

int
fl_gate_init(const struct fl_app *app)
{
	uint64_t hz = rte_get_tsc_hz();
	bool memif = false;
	int ret;

	for (unsigned int i = 0; i < app->nports; i++)
		if (app->port[i].driver != NULL && strcmp(app->port[i].driver, "net_memif") == 0)
			memif = true;
	if (!memif)
		return 0;
	g.period = hz * GATE_PERIOD_US / 1000000;
	g.spin = hz * GATE_SPIN_US / 1000000;
	g.kick = hz * GATE_KICK_US / 1000000;
	g.kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	g.wake_fd = eventfd(0, EFD_CLOEXEC);
	if (g.kick_fd < 0 || g.wake_fd < 0) {
		fprintf(stderr, FL_PROG ": eventfd: %s\n", strerror(errno));
		gate_free();
		return -1;
	}
	g.ih = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	ret = g.ih == NULL ? -ENOMEM : rte_intr_type_set(g.ih, RTE_INTR_HANDLE_EXT);
	if (ret == 0)
		ret = rte_intr_fd_set(g.ih, g.kick_fd);
	if (ret == 0)
		ret = rte_intr_callback_register(g.ih, gate_cb, NULL);
	if (ret != 0) {
		fprintf(stderr, FL_PROG ": the interrupt gate: %s\n", rte_strerror(-ret));
		gate_free();
		return -1;
	}
	g.on = true;
	fd_signal(g.kick_fd);   /* parked before the first burst */
	return 0;
}

void
fl_gate_fini(void)
{
	if (!g.on)
		return;
	STORE(g.done, 1);
	fd_signal(g.wake_fd);
	/* waits until gate_cb has returned: EAL then drops the source */
	(void)rte_intr_callback_unregister_sync(g.ih, gate_cb, NULL);
	g.on = false;
	gate_free();
}
