package narwhal.grpc;

import io.grpc.Deadline;
import narwhal.api.Caller;
import narwhal.time.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * What the front-end knew when a call arrived.
 *
 * @param loop the call's scheduler: its state, its sink calls and its engine legs run here
 * @param arrivalNanos {@code loop.nanoTime()} when the call's headers arrived
 * @param deadline the client's gRPC deadline, or null
 * @param deadlineNanos the same deadline on {@code loop.nanoTime()}, or null
 * @param clientRequestId the client's {@code x-request-id} header, or null
 * @param traceparent the client's {@code traceparent} metadata (repeated values joined with ","), or ""
 * @param tracestate the client's {@code tracestate} metadata (likewise), or ""
 * @param caller who the {@code authorization} metadata proved the client to be
 */
record CallStart(
    Scheduler loop,
    long arrivalNanos,
    @Nullable Deadline deadline,
    @Nullable Long deadlineNanos,
    @Nullable String clientRequestId,
    String traceparent,
    String tracestate,
    Caller caller) {}
