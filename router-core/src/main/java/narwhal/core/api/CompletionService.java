package narwhal.core.api;

import narwhal.core.time.Scheduler;
import narwhal.proto.v1.CompletionRequest;

/** The router as front-ends see it: submit a parsed request, receive its outcome on a sink. */
public interface CompletionService {

  /**
   * Starts orchestrating {@code request}. Never blocks; the outcome arrives on {@code sink}, on
   * {@code loop}.
   *
   * @param arrivalNanos {@code loop.nanoTime()} when the request arrived at the router; the
   *     measurement contract ({@code ttft_s}, {@code first_byte_s}) counts from here
   */
  RequestHandle submit(CompletionRequest request, ClientSink sink, Scheduler loop, long arrivalNanos);

  /** The model name this fleet serves. */
  String model();

  /** True when the router admits work (at least one engine per phase is placeable). */
  boolean ready();
}
