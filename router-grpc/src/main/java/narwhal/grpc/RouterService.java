package narwhal.grpc;

import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ServerCalls;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import narwhal.api.Arrival;
import narwhal.api.AuthErrors;
import narwhal.api.Authentication;
import narwhal.api.Caller;
import narwhal.api.CompletionService;
import narwhal.api.FrontEnd;
import narwhal.api.RequestIds;
import narwhal.api.RouterError;
import narwhal.api.TraceContext;
import narwhal.grpc.v1.RouterGrpc;
import narwhal.proto.v1.Completion;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.ListModelsResponse;
import narwhal.proto.v1.Model;
import narwhal.proto.v1.StreamEvent;
import narwhal.time.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * {@code narwhal.v1.Router} over a {@link CompletionService}: the front-end only maps between
 * gRPC and the core; orchestration, failure rules and measurement are the core's, as for HTTP.
 *
 * <p>The completion methods are served with {@link ServerCall} directly rather than generated
 * stubs, for what the stub API hides: response headers at the commit point ({@code x-request-id}),
 * trailers on success and failure, and {@code isReady}/on-ready for flow control. The service
 * descriptor is the generated one, so reflection describes it from the published .proto files.
 *
 * <p>A call is authenticated from its metadata and admitted before its message is read, as an
 * HTTP request is on its headers.
 */
final class RouterService {

  private RouterService() {}

  /**
   * @param picker chooses each call's scheduler (its event loop)
   * @param startedEpochSeconds the {@code created} of the listed model (the router's start)
   * @param openCalls where open completion calls are tracked, for shutdown
   * @param validator validates requests (large ones off the loop, on the router's pool)
   */
  static ServerServiceDefinition definition(CompletionService service, LoopPicker picker,
      GrpcFrontEndOptions limits, long startedEpochSeconds, OpenCalls openCalls, RequestValidator validator) {
    ServerCallHandler<CompletionRequest, StreamEvent> stream = (call, headers) -> {
      Scheduler loop = picker.pick();
      Authentication auth = service.authenticator().authenticate(authorization(headers));
      Arrival arrival = arrival(loop, headers, auth);
      if (auth.caller() == null) {
        return refuse(call, arrival, service, auth);
      }
      return started(new StreamingCall(call, arrival, service, limits.maxRequestBytes(), openCalls, validator));
    };
    ServerCallHandler<CompletionRequest, Completion> complete = (call, headers) -> {
      Scheduler loop = picker.pick();
      Authentication auth = service.authenticator().authenticate(authorization(headers));
      Arrival arrival = arrival(loop, headers, auth);
      if (auth.caller() == null) {
        return refuse(call, arrival, service, auth);
      }
      return started(new UnaryCall(
          call, arrival, service, limits.maxRequestBytes(), limits.maxResponseBytes(), openCalls, validator));
    };
    ListModelsResponse models = ListModelsResponse.newBuilder()
        .addModels(Model.newBuilder().setId(service.model()).setOwnedBy("narwhal").setCreated(startedEpochSeconds))
        .build();
    return ServerServiceDefinition.builder(RouterGrpc.getServiceDescriptor())
        .addMethod(RouterGrpc.getStreamCompletionMethod(), stream)
        .addMethod(RouterGrpc.getCompleteMethod(), complete)
        .addMethod(RouterGrpc.getListModelsMethod(), ServerCalls.asyncUnaryCall((request, observer) -> {
          observer.onNext(models);
          observer.onCompleted();
        }))
        .build();
  }

  /**
   * Admission runs on the call's loop as soon as the call starts, before the message is asked for:
   * see {@link CompletionCall#admit()}.
   */
  private static <L extends CompletionCall<?>> L started(L call) {
    call.arrival.loop().runInLoop(call::admit);
    return call;
  }

  /**
   * Runs in {@code startCall}, inside the call's {@link Context}. Arrival is read before the
   * deadline's remaining time, so the core's deadline is never later than gRPC's own.
   */
  private static Arrival arrival(Scheduler loop, Metadata headers, Authentication auth) {
    long arrivalNanos = loop.nanoTime();
    Deadline deadline = Context.current().getDeadline();
    narwhal.time.Deadline clientDeadline = deadline == null ? narwhal.time.Deadline.NONE
        : narwhal.time.Deadline.client(arrivalNanos + deadline.timeRemaining(TimeUnit.NANOSECONDS));
    Caller caller = auth.caller() == null ? Caller.ANONYMOUS : auth.caller();
    return new Arrival(loop, arrivalNanos, RequestIds.hex32(), headers.get(GrpcErrors.REQUEST_ID), clientDeadline,
        caller, FrontEnd.GRPC, new TraceContext(joined(headers.getAll(TRACEPARENT)), joined(headers.getAll(TRACESTATE))));
  }

  /**
   * Ends a call whose {@code authorization} metadata proved no tenant: UNAUTHENTICATED, with the
   * challenge in the trailers as HTTP's {@code WWW-Authenticate}, recorded by the core as HTTP's
   * 401s are. The request message is never read.
   */
  private static <Q, R> ServerCall.Listener<Q> refuse(ServerCall<Q, R> call, Arrival arrival,
      CompletionService service, Authentication refused) {
    service.rejectUnauthenticated(arrival, refused);
    String requestId = arrival.requestId();
    RouterError error = java.util.Objects.requireNonNull(refused.refusal());
    Metadata trailers = GrpcErrors.trailers(error, requestId);
    if (error.status() == 401) {
      trailers.put(WWW_AUTHENTICATE, AuthErrors.CHALLENGE);
    }
    call.close(GrpcErrors.status(error), trailers);
    return new ServerCall.Listener<>() {};
  }

  static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> WWW_AUTHENTICATE =
      Metadata.Key.of("www-authenticate", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> TRACEPARENT = Metadata.Key.of("traceparent", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> TRACESTATE = Metadata.Key.of("tracestate", Metadata.ASCII_STRING_MARSHALLER);

  /** Every {@code authorization} value: the authenticator refuses more than one. */
  private static List<String> authorization(Metadata headers) {
    Iterable<String> values = headers.getAll(AUTHORIZATION);
    List<String> all = new ArrayList<>(1);
    if (values != null) {
      values.forEach(all::add);
    }
    return all;
  }

  /** A repeated key's values joined as HTTP joins a repeated header (the core validates them). */
  private static String joined(@Nullable Iterable<String> values) {
    return values == null ? "" : TraceContext.joined(values);
  }
}
