/**
 * The processes a benchmark runs against: simulated engines, the router and nginx, each its own
 * OS process so its CPU and memory are measured alone.
 */
@NullMarked
package narwhal.bench.fleet;

import org.jspecify.annotations.NullMarked;
