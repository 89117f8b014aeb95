/**
 * CPU and allocation profiles of the router over a measurement window: async-profiler attached
 * with {@code jcmd} (JFR as the fallback), and the collapsed stacks both give, summarised.
 */
@NullMarked
package narwhal.bench.profile;

import org.jspecify.annotations.NullMarked;
