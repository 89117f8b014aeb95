/**
 * Engine checks: health, the served model, the pinned engine contract, a generation probe and the
 * KV transfer probe, each a non-blocking {@link java.util.concurrent.CompletableFuture} bounded by
 * the fleet's timeouts. Readmission runs them as lifecycle validation; preflight ({@code narwhal
 * check}) runs them over the whole fleet before serving.
 */
@NullMarked
package narwhal.core.checks;

import org.jspecify.annotations.NullMarked;
