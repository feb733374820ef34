/** The generators' caches: bounded, since everything in them can be computed again. */

/** Entries a sandbox cache keeps before it starts afresh: memory stays bounded whatever is asked. */
const CACHE_LIMIT = 10_000;

/**
 * `map`'s value for `key`, else `make()` stored under it. The map is emptied once it holds
 * CACHE_LIMIT entries: everything in it can be computed again, so a bound beats an LRU here.
 */
export function memo<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  const hit = map.get(key);
  if (hit !== undefined) return hit;
  const value = make();
  if (map.size > CACHE_LIMIT) map.clear();
  map.set(key, value);
  return value;
}
