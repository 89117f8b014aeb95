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
import narwhal.api.CompletionService;
import narwhal.api.FrontEnd;
import narwhal.api.RouterError;
import narwhal.api.AuthErrors;
import narwhal.api.Authentication;
import narwhal.api.Caller;
import narwhal.time.Scheduler;
import org.jspecify.annotations.Nullable;
import narwhal.proto.v1.Completion;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.ListModelsResponse;
import narwhal.proto.v1.Model;
import narwhal.grpc.v1.RouterGrpc;
import narwhal.proto.v1.StreamEvent;

/**
 * {@code narwhal.v1.Router} over a {@link CompletionService}: the front-end only maps between
 * gRPC and the core; orchestration, failure rules and measurement are the core's, as for HTTP.
 *
 * <p>The completion methods are served with {@link ServerCall} directly rather than generated
 * stubs, for what the stub API hides: response headers at the commit point ({@code x-request-id}),
 * trailers on success and failure, and {@code isReady}/on-ready for flow control. The service
 * descriptor is the generated one, so reflection describes it from the published .proto files.
 */
final class RouterService {

  private RouterService() {}

  /**
   * @param picker chooses each call's scheduler (its event loop)
   * @param startedEpochSeconds the {@code created} of the listed model (the router's start)
   * @param openCalls where open completion calls are tracked, for shutdown
   * @param validator validates requests (large ones off the loop); the caller owns it
   */
  static ServerServiceDefinition definition(CompletionService router, LoopPicker picker,
      GrpcFrontEndOptions limits, long startedEpochSeconds, OpenCalls openCalls, RequestValidator validator) {
    // Every request this front-end admits is journalled as carried over gRPC.
    CompletionService service = router.forFrontEnd(FrontEnd.GRPC);
    ServerCallHandler<CompletionRequest, StreamEvent> stream = (call, headers) -> {
      // The caller is proven from the metadata before the request message is read, as HTTP
      // proves it from the headers.
      Authentication auth = service.authenticator().authenticate(authorization(headers));
      if (auth.caller() == null) {
        return refuse(call, headers, picker, service, auth);
      }
      CallStart start = callStart(picker, headers, auth.caller());
      StreamingCall listener = new StreamingCall(call, start, service, limits.maxRequestBytes(), openCalls, validator);
      // One message is the whole request; asking for two lets a protocol violation be seen.
      call.request(2);
      return listener;
    };
    ServerCallHandler<CompletionRequest, Completion> complete = (call, headers) -> {
      // The caller is proven from the metadata before the request message is read, as HTTP
      // proves it from the headers.
      Authentication auth = service.authenticator().authenticate(authorization(headers));
      if (auth.caller() == null) {
        return refuse(call, headers, picker, service, auth);
      }
      CallStart start = callStart(picker, headers, auth.caller());
      UnaryCall listener = new UnaryCall(
          call, start, service, limits.maxRequestBytes(), limits.maxResponseBytes(), openCalls, validator);
      call.request(2);
      return listener;
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
   * Runs in {@code startCall}, inside the call's {@link Context}. Arrival is read before the
   * deadline's remaining time, so the core's deadline is never later than gRPC's own.
   */
  private static CallStart callStart(LoopPicker picker, Metadata headers, Caller caller) {
    Scheduler loop = picker.pick();
    long arrivalNanos = loop.nanoTime();
    Deadline deadline = Context.current().getDeadline();
    Long deadlineNanos = deadline == null ? null : arrivalNanos + deadline.timeRemaining(TimeUnit.NANOSECONDS);
    return new CallStart(loop, arrivalNanos, deadline, deadlineNanos, headers.get(GrpcErrors.REQUEST_ID),
        joined(headers.getAll(TRACEPARENT)), joined(headers.getAll(TRACESTATE)), caller);
  }

  /**
   * Ends a call whose {@code authorization} metadata proved no tenant: UNAUTHENTICATED, with the
   * challenge in the trailers as HTTP's {@code WWW-Authenticate}, recorded by the core as HTTP's
   * 401s are. The request message is never read.
   */
  private static <Q, R> ServerCall.Listener<Q> refuse(ServerCall<Q, R> call, Metadata headers, LoopPicker picker,
      CompletionService service, Authentication refused) {
    Scheduler loop = picker.pick();
    String requestId = service.rejectUnauthenticated(loop, loop.nanoTime(), headers.get(GrpcErrors.REQUEST_ID), refused);
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
    return values == null ? "" : String.join(",", values);
  }
}
