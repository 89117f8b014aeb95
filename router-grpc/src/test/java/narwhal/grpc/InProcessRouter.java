package narwhal.grpc;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.MetadataUtils;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import narwhal.grpc.v1.RouterGrpc;
import narwhal.testing.ScriptedCompletionService;
import org.jspecify.annotations.Nullable;

/**
 * The router's gRPC services in-process, over a {@link ScriptedCompletionService}, on one
 * {@link FakeClock}: servers and channels use direct executors, so a call, the fake core and
 * gRPC's timers all run on the test's thread as the clock is advanced.
 */
final class InProcessRouter {

  final FakeClock clock = new FakeClock();
  final ScriptedCompletionService service = new ScriptedCompletionService();
  final HealthStatusManager health = new HealthStatusManager();
  final ReadinessReporter readiness;
  final OpenCalls openCalls = new OpenCalls();
  final ManagedChannel channel;

  InProcessRouter(GrpcCleanupExtension cleanup, GrpcFrontEndOptions options) {
    String name = InProcessServerBuilder.generateName();
    readiness = new ReadinessReporter(service, health, clock.scheduler, options.readinessPoll().toNanos());
    try {
      cleanup.register(InProcessServerBuilder.forName(name)
          .directExecutor()
          .scheduledExecutorService(clock.executor)
          .deadlineTicker(clock.ticker)
          .addService(RouterService.definition(service, () -> clock.scheduler, options,
              ScriptedCompletionService.CREATED, openCalls,
              // Everything validated in place, on the manual clock's thread: no pool thread starts.
              new RequestValidator(RequestValidator.Check.standard(), narwhal.api.OffLoopPool.create(Integer.MAX_VALUE, 1, 1))))
          .addService(health.getHealthService())
          .build()
          .start());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    channel = cleanup.register(InProcessChannelBuilder.forName(name)
        .directExecutor()
        .scheduledExecutorService(clock.executor)
        .build());
  }

  InProcessRouter(GrpcCleanupExtension cleanup) {
    this(cleanup, new GrpcFrontEndOptions("in-process", 0, 1 << 20, 1 << 20));
  }

  RouterGrpc.RouterStub stub(Recorder<?> recorder) {
    return RouterGrpc.newStub(channel)
        .withInterceptors(MetadataUtils.newCaptureMetadataInterceptor(recorder.headers, recorder.trailers));
  }

  /**
   * A client call's whole outcome: the messages, the headers and trailers, and the final status
   * (null while the call is open). Optionally reads with manual flow control.
   */
  static final class Recorder<T> implements ClientResponseObserver<Object, T> {
    final List<T> messages = new ArrayList<>();
    final AtomicReference<Metadata> headers = new AtomicReference<>();
    final AtomicReference<Metadata> trailers = new AtomicReference<>();
    @Nullable Status status;
    @Nullable ClientCallStreamObserver<Object> call;
    private final int initialRequest;

    Recorder() {
      this(-1);
    }

    /** Reads {@code initialRequest} messages, then only what {@link #request} asks for. */
    Recorder(int initialRequest) {
      this.initialRequest = initialRequest;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<Object> requestStream) {
      call = requestStream;
      if (initialRequest >= 0) {
        requestStream.disableAutoRequestWithInitial(initialRequest);
      }
    }

    void request(int n) {
      call.request(n);
    }

    void cancel() {
      call.cancel("client gave up", null);
    }

    @Override
    public void onNext(T value) {
      messages.add(value);
    }

    @Override
    public void onError(Throwable t) {
      status = Status.fromThrowable(t);
    }

    @Override
    public void onCompleted() {
      status = Status.OK;
    }

    String trailer(Metadata.Key<String> key) {
      Metadata t = trailers.get();
      return t == null ? null : t.get(key);
    }

    String header(Metadata.Key<String> key) {
      Metadata h = headers.get();
      return h == null ? null : h.get(key);
    }
  }
}
