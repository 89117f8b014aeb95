/**
 * Cache-aware placement in the request path: which engine holds a prompt's prefix (asked of the
 * {@link narwhal.prefix.PrefixCacheView} the assembly installs), the affinity that sends a prompt
 * to it and the hot-prefix guard that spills it elsewhere ({@link
 * narwhal.core.cache.PrefillAffinity}), the {@code cache_placement} label, and the comparison of
 * what the index predicted with what the engine reported ({@link narwhal.core.cache.CachePlacement}).
 * With {@code cache.mode: off} none of it runs.
 */
@NullMarked
package narwhal.core.cache;

import org.jspecify.annotations.NullMarked;
