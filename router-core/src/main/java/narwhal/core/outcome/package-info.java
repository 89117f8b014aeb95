/**
 * How one request ended, as one typed value: {@link narwhal.core.outcome.RequestOutcome}. The
 * journal row, the outcome counters and latency histograms, and the per-request log line are all
 * derived from it, so they cannot disagree.
 */
@NullMarked
package narwhal.core.outcome;

import org.jspecify.annotations.NullMarked;
