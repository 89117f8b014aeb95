/**
 * The router's metrics on a Dropwizard {@link com.codahale.metrics.MetricRegistry}: outcome
 * counters fed from each {@link narwhal.core.outcome.RequestOutcome}, bucketed latency histograms,
 * and gauges over admission, the retry budget and the fleet. Series carry Prometheus-style labels
 * in their registry names (see {@link narwhal.core.metrics.SeriesName}); front-ends export them.
 */
@NullMarked
package narwhal.core.metrics;

import org.jspecify.annotations.NullMarked;
