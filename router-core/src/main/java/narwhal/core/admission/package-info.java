/**
 * Admission: how many requests the router holds at once ({@code serving.max_connections}), the
 * optional FIFO queue in front of that limit ({@code serving.queue_capacity}, {@code
 * serving.queue_timeout_s}), and draining for shutdown. Front-ends take a {@link
 * narwhal.core.admission.Seat} when a request arrives (HTTP: at its headers, before the body is
 * read) and the core releases it when the request ends. Predictive admission ({@link
 * narwhal.core.admission.PredictiveAdmission}) then prices each seated request's time to first
 * token against the SLO budget before its first prefill is dispatched.
 */
@NullMarked
package narwhal.core.admission;

import org.jspecify.annotations.NullMarked;
