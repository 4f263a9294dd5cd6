// The user every scenario reads and writes as: an ordinary one of the 100, in the middle of the key order.
export const BENCH_USER = 'user-0050';
