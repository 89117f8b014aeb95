/**
 * Following a request into the engines: W3C trace context taken from the client (or started
 * here) and sent on every leg, and OpenTelemetry spans for the request and each leg. Without an
 * SDK (the default) the spans are the API's no-op and only the trace context travels.
 */
@NullMarked
package narwhal.core.trace;

import org.jspecify.annotations.NullMarked;
