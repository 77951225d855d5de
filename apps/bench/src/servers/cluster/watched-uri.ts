/** The resource the cluster section's fan-out measurement subscribes to (servers/cluster/node.ts serves it). */
export const WATCHED_URI = 'bench://watched';
