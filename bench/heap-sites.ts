/**
 * A sampling heap profile (V8's HeapProfiler.stopSampling result) as allocation sites: bytes by
 * allocating function and its two callers, largest first. Shared by the hot-path and the live
 * heap-profile tools; owns the folding only.
 */

interface ProfileNode {
  callFrame: { functionName: string; url: string };
  selfSize: number;
  children: ProfileNode[];
}

export interface HeapProfile {
  head: ProfileNode;
}

/** The profile's sites with their bytes, largest first, and the total. */
export function heapSites(profile: HeapProfile): { total: number; sites: [string, number][] } {
  const bySite = new Map<string, number>();
  const walk = (node: ProfileNode, callers: string[]): void => {
    const name = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}`;
    if (node.selfSize > 0) {
      const site = [name, ...callers.slice(0, 2)].join(' < ');
      bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, [name, ...callers]);
  };
  walk(profile.head, []);
  let total = 0;
  for (const size of bySite.values()) total += size;
  return { total, sites: [...bySite].sort((a, b) => b[1] - a[1]) };
}
