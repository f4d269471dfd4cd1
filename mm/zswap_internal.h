/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zswap internals shared between mm/zswap.c and its KUnit tests
 * (mm/tests/zswap_kunit.c). Nothing outside those two may include it.
 */
#ifndef _MM_ZSWAP_INTERNAL_H
#define _MM_ZSWAP_INTERNAL_H

#include <linux/bits.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/list_lru.h>
#include <linux/swap.h>
#include <linux/swap_ops.h>

struct zswap_pool;
struct obj_cgroup;

/*
 * struct zswap_entry
 *
 * This structure contains the metadata for tracking a single compressed
 * page within zswap.
 *
 * swpentry - associated swap entry, the offset indexes into the xarray
 * length - the length in bytes of the compressed page data.  Needed during
 *          decompression.
 * referenced - true if the entry recently entered the zswap pool. Unset by the
 *              writeback logic. The entry is only reclaimed by the writeback
 *              logic if referenced is unset. See comments in the shrinker
 *              section for context.
 * pool - the zswap_pool the entry's data is in
 * handle - zsmalloc allocation handle that stores the compressed page data
 * objcg - the obj_cgroup that the compressed memory is charged to
 * lru - handle to the pool's lru used to evict pages.
 */
struct zswap_entry {
	swp_entry_t swpentry;
	unsigned int length;
	bool referenced;
	struct zswap_pool *pool;
	unsigned long handle;
	struct obj_cgroup *objcg;
	struct list_head lru;
};

/**
 * enum zswap_walk_flags - flags of one LRU walk of the zswap shrinker
 * @ZSWAP_WALK_STOP_ON_SWAPCACHE: in: stop the walk at an entry whose folio
 *	is already in the swap cache (a sign that the walk has reached warm
 *	entries)
 * @ZSWAP_WALK_HIT_SWAPCACHE: out: the walk stopped at such an entry
 * @ZSWAP_WALK_PACE: in: the walk runs in the deferred writeback worker,
 *	which pays its memcg's IO delay after the walk's batch is submitted
 *	(zswap_wb_owed(), zswap_wb_pay())
 * @ZSWAP_WALK_NORECLAIM: in: allocate without direct reclaim, never retry
 *	with it, and stop the walk when an allocation fails (the deferred
 *	writeback worker: it has no reserve access and must not force its
 *	memcg charges)
 * @ZSWAP_WALK_NOMEM: out: the walk stopped because an allocation failed
 * @ZSWAP_WALK_MIGRATED: out: the walk's folios went into the LRU-add
 *	batches of more than one CPU (zswap_walk_note_cpu())
 *
 * The caller of the walk sets the "in" flags and clears the "out" flags;
 * shrink_memcg_cb() reads the former and sets the latter.
 */
enum zswap_walk_flags {
	ZSWAP_WALK_STOP_ON_SWAPCACHE	= BIT(0),
	ZSWAP_WALK_HIT_SWAPCACHE	= BIT(1),
	ZSWAP_WALK_PACE			= BIT(2),
	ZSWAP_WALK_NORECLAIM		= BIT(3),
	ZSWAP_WALK_NOMEM		= BIT(4),
	ZSWAP_WALK_MIGRATED		= BIT(5),
};

/**
 * struct zswap_walk - one LRU walk of zswap writeback
 * @flags: the walk's enum zswap_walk_flags, in and out
 * @io: the swap IO the walk's writes are gathered in, so that entries in
 *	consecutive slots go out in one bio; issued as root, as all swap IO
 * @cpu: the CPU whose LRU-add batch the walk's first folio went into, or
 *	-1 before the walk allocates one
 * @swap_type: the swap device the walk last wrote to, or -1 before it
 *	writes: where a paced walk's IO cost is owed (zswap_wb_owed())
 *
 * Set up with zswap_walk_init(); whoever walks submits @io when the walk
 * ends, whatever ended it (zswap_walk_batch() does).
 */
struct zswap_walk {
	unsigned int flags;
	int cpu;
	int swap_type;
	struct swap_io_ctx io;
};

/**
 * enum zswap_wb_reason - why zswap writes entries back
 * @ZSWAP_WB_SHRINKER: the memory-pressure shrinker's writeback in its
 *	worker, paced: the worker pays the memcg's IO delay between chunks
 * @ZSWAP_WB_RECLAIM: the memory-pressure shrinker's writeback, not paced:
 *	in place by a reclaimer (a task pays its cgroup's IO delay on its
 *	return to user space, as for any swap-out; kswapd and global reclaim
 *	do not), or in the worker for a memcg that no IO controller can
 *	throttle on the swap devices (swap_io_controlled())
 * @ZSWAP_WB_POOL_LIMIT: the pool is over max_pool_percent (shrink_worker())
 * @ZSWAP_WB_MEMCG_LIMIT: a cgroup is over memory.zswap.max (zswap_store())
 */
enum zswap_wb_reason {
	ZSWAP_WB_SHRINKER,
	ZSWAP_WB_RECLAIM,
	ZSWAP_WB_POOL_LIMIT,
	ZSWAP_WB_MEMCG_LIMIT,
};

/*
 * Deferred shrinker writeback (see mm/zswap.c): when reclaim that finds the
 * worker's claim pending gives up backing off, and how long it waits.
 */
/* back-offs from one pending claim after which reclaim is failing */
#define ZSWAP_WB_BUSY_MAX	4
/* age of a pending claim after which the worker lags (100ms) */
#define ZSWAP_WB_LAG		(HZ / 10)
/* longest wait of a reclaimer for the worker's progress (10ms) */
#define ZSWAP_WB_WAIT		(HZ / 100 ?: 1)
/* wb_pending while a claim is being made: its age is not written yet */
#define ZSWAP_WB_CLAIMING	(-1L)
/* lruvec writeback work items running at once, at most */
#define ZSWAP_WB_MAX_ACTIVE	4

/**
 * struct zswap_wb_end - how a run of chunks ended
 * @delay: the IO delay owed after its last chunk, in nanoseconds; 0 if none
 *	   or if the run was not paced
 * @left: entries of the run's claim it did not walk because of @delay
 * @warm: its last chunk met an entry already in the swap cache
 */
struct zswap_wb_end {
	u64 delay;
	unsigned long left;
	bool warm;
};

/**
 * struct zswap_reclaimer - who runs the shrinker, as far as writeback cares
 * @kswapd: the task is kswapd
 * @kthread: the task is a kernel thread (kswapd included)
 * @own_charge: the memcg being shrunk is the one the task charges to, or
 *	an ancestor of it
 * @limit: the reclaim is for a memcg's limit (the memcg being shrunk or
 *	an ancestor), for an allocation: not global, not proactive
 * @controlled: an IO controller may throttle the writes of the memcg being
 *	shrunk on a swap device (zswap_wb_io_controlled())
 */
struct zswap_reclaimer {
	bool kswapd;
	bool kthread;
	bool own_charge;
	bool limit;
	bool controlled;
};

/**
 * enum zswap_wb_fallback - what a struggling reclaimer does about writeback
 * @ZSWAP_FB_BACKOFF: nothing: the pending claim covers it
 * @ZSWAP_FB_UNTHROTTLED: write a chunk back in place at once
 * @ZSWAP_FB_THROTTLED: wait for the worker (bounded), then write a chunk
 *	back in place; the task pays its cgroup's IO delay on its return to
 *	user space, as stock swap-out does
 */
enum zswap_wb_fallback {
	ZSWAP_FB_BACKOFF,
	ZSWAP_FB_UNTHROTTLED,
	ZSWAP_FB_THROTTLED,
};

struct mem_cgroup;
struct shrink_control;
struct shrinker;
struct swap_io_ctx;
struct work_struct;
struct zswap_lruvec_state;

#if IS_ENABLED(CONFIG_KUNIT)
unsigned int zswap_wb_walk_flags(enum zswap_wb_reason reason);
int zswap_writeback_entry(struct zswap_entry *entry, swp_entry_t swpentry,
			  struct zswap_walk *walk);
enum lru_status shrink_memcg_cb(struct list_head *item, struct list_lru_one *l,
				void *arg);
void zswap_walk_init(struct zswap_walk *walk, enum zswap_wb_reason reason);
gfp_t zswap_wb_gfp(const struct swap_io_ctx *io);
struct folio *zswap_swap_cache_alloc(swp_entry_t swpentry, gfp_t gfp);
struct folio *zswap_wb_alloc_folio(swp_entry_t swpentry, struct zswap_walk *walk);
unsigned long zswap_lru_walk(struct mem_cgroup *memcg, int nid,
			     struct zswap_walk *walk, unsigned long *nr_to_walk);
void zswap_walk_note_cpu(struct zswap_walk *walk, int before, int after);
bool zswap_wb_drain_all(const struct zswap_walk *walk, int cpu);
void zswap_wb_lru_drain(const struct zswap_walk *walk);
void zswap_wb_folio_to_lru(struct folio *folio);
bool zswap_wb_lru_before_write(const struct swap_info_struct *si,
			       struct folio *folio);
unsigned long zswap_walk_batch(struct mem_cgroup *memcg, int nid,
			       struct zswap_walk *walk, unsigned long *nr_to_walk);
unsigned long zswap_lru_len(struct mem_cgroup *memcg, int nid);
unsigned long zswap_walk_budget(unsigned long nr, unsigned long len);
int shrink_memcg(struct mem_cgroup *memcg, enum zswap_wb_reason reason);
unsigned long zswap_wb_chunks(struct mem_cgroup *memcg, int nid,
			      unsigned long nr, enum zswap_wb_reason reason,
			      atomic_long_t *written, struct zswap_wb_end *end);
bool zswap_wb_allowed(struct mem_cgroup *memcg);
bool zswap_wb_io_controlled(struct mem_cgroup *memcg);
u64 zswap_wb_owed(struct mem_cgroup *memcg, const struct zswap_walk *walk);
void zswap_wb_sleep(u64 delay);
int zswap_wb_requeue_cpu(int nid);
bool zswap_wb_requeue(struct delayed_work *work, int nid, unsigned long delay);
bool zswap_wb_pay(struct zswap_lruvec_state *state, struct mem_cgroup *memcg,
		  int nid, unsigned long left, u64 delay);
bool zswap_memcg_tryget_online(struct mem_cgroup *memcg);
void zswap_memcg_put(struct mem_cgroup *memcg);
bool zswap_memcg_dying(struct mem_cgroup *memcg);
bool zswap_wb_wq_ready(void);
bool zswap_wb_queue(struct work_struct *work, int nid);
int zswap_wb_defer(struct zswap_lruvec_state *state, struct mem_cgroup *memcg,
		   int nid, unsigned long nr);
bool zswap_wb_cancel(struct zswap_lruvec_state *state, struct mem_cgroup *memcg);
unsigned long zswap_wb_run(struct zswap_lruvec_state *state,
			   struct mem_cgroup *memcg, int nid);
bool zswap_wb_struggling(unsigned int busy, unsigned long claimed_at,
			 unsigned long now);
bool zswap_wb_claim_struggling(struct zswap_lruvec_state *state);
enum zswap_wb_fallback zswap_wb_fallback_mode(const struct zswap_reclaimer *r);
void zswap_reclaimer_of(const struct shrink_control *sc, struct zswap_reclaimer *r);
struct zswap_lruvec_state *zswap_lruvec_state_of(struct mem_cgroup *memcg, int nid);
unsigned long zswap_wb_wait_progress(struct zswap_lruvec_state *state,
				     long before, long timeout);
unsigned long zswap_wb_fallback(struct zswap_lruvec_state *state,
				struct mem_cgroup *memcg, int nid,
				unsigned long nr, enum zswap_wb_fallback mode);
unsigned long zswap_wb_inplace(struct shrink_control *sc);
unsigned long zswap_shrinker_scan(struct shrinker *shrinker,
				  struct shrink_control *sc);
#endif

#endif /* _MM_ZSWAP_INTERNAL_H */
