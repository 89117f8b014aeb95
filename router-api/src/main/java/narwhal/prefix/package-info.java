/**
 * What the router's placement may ask of a prefix-cache index, and nothing more: which leading
 * tokens of a prompt an engine holds in its prefix cache ({@link narwhal.prefix.PrefixCacheView}).
 * The index itself (vLLM's KV events, the approximate index learned from placements, the
 * self-check) lives in the {@code kv-index} module; the core sees only this interface, so it
 * knows neither ZeroMQ nor MessagePack nor how the index keys its blocks.
 */
@NullMarked
package narwhal.prefix;

import org.jspecify.annotations.NullMarked;
