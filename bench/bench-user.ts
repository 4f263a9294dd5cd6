// The users the scenarios act as: the bench user, and the users of the realistic mix.
/** An ordinary one of the 100 users, in the middle of the key order. */
export const BENCH_USER = 'user-0050';

/** Every second user of the 100 (the bench user among them), busiest first in the mix's Zipf order. */
export const MIX_USERS: readonly string[] = Array.from({ length: 50 }, (_, i) => `user-${String(i * 2).padStart(4, '0')}`);
