/**
 * The load generator: a Netty HTTP/1.1 client with keep-alive pools per event loop and target, an
 * incremental SSE parser, exact token checking, closed-loop and Poisson open-loop drivers and
 * HdrHistogram latency recording.
 */
@NullMarked
package narwhal.bench.load;

import org.jspecify.annotations.NullMarked;
