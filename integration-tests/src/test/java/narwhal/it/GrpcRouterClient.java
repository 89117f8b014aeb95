package narwhal.it;

import io.grpc.Deadline;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.MetadataUtils;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import narwhal.proto.v1.ChatMessage;
import narwhal.proto.v1.ChatMessages;
import narwhal.proto.v1.Completion;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Prompt;
import narwhal.proto.v1.Route;
import narwhal.grpc.v1.RouterGrpc;
import narwhal.proto.v1.StreamEvent;
import org.jspecify.annotations.Nullable;

/** A plain gRPC client for the router, as an internal service would call it. */
final class GrpcRouterClient implements AutoCloseable {

  static final Metadata.Key<String> REQUEST_ID = key("x-request-id");
  static final Metadata.Key<String> ERROR_TYPE = key("narwhal-error-type");
  static final Metadata.Key<String> ERROR_CODE = key("narwhal-error-code");
  static final Metadata.Key<String> HTTP_STATUS = key("narwhal-http-status");
  static final Metadata.Key<String> RETRY_AFTER = key("retry-after");

  final ManagedChannel channel;

  GrpcRouterClient(int port) {
    channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
  }

  static CompletionRequest completion(String prompt, int maxTokens) {
    return CompletionRequest.newBuilder()
        .setRoute(Route.ROUTE_COMPLETIONS)
        .setModel("narwhal-sim")
        .setPrompt(Prompt.newBuilder().setText(prompt))
        .setMaxTokens(maxTokens)
        .build();
  }

  static CompletionRequest chat(String content, int maxTokens) {
    return CompletionRequest.newBuilder()
        .setRoute(Route.ROUTE_CHAT_COMPLETIONS)
        .setChat(ChatMessages.newBuilder().addMessages(ChatMessage.newBuilder().setRole("user").setText(content)))
        .setMaxTokens(maxTokens)
        .build();
  }

  /** StreamCompletion read to its end. */
  Outcome<StreamEvent> stream(CompletionRequest request) {
    return stream(request, null, (event, call) -> {});
  }

  /**
   * StreamCompletion with an optional deadline; {@code onEvent} sees each event and may cancel the
   * call through the second argument.
   */
  Outcome<StreamEvent> stream(CompletionRequest request, @Nullable Duration deadline,
      BiConsumer<StreamEvent, ClientCallStreamObserver<?>> onEvent) {
    Recorder<StreamEvent> r = new Recorder<>(onEvent);
    stub(r, deadline).streamCompletion(request, r);
    return r.await();
  }

  /** Complete: the whole answer, or the failure. */
  Outcome<Completion> complete(CompletionRequest request) {
    Recorder<Completion> r = new Recorder<>((c, call) -> {});
    stub(r, null).complete(request, r);
    return r.await();
  }

  private RouterGrpc.RouterStub stub(Recorder<?> r, @Nullable Duration deadline) {
    RouterGrpc.RouterStub stub = RouterGrpc.newStub(channel)
        .withInterceptors(MetadataUtils.newCaptureMetadataInterceptor(r.headers, r.trailers));
    return deadline == null ? stub : stub.withDeadline(Deadline.after(deadline.toNanos(), TimeUnit.NANOSECONDS));
  }

  @Override
  public void close() throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  private static Metadata.Key<String> key(String name) {
    return Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER);
  }

  /** A finished call as the client saw it. */
  record Outcome<T>(List<T> messages, Status status, @Nullable Metadata headers, @Nullable Metadata trailers) {

    @Nullable String trailer(Metadata.Key<String> key) {
      return trailers == null ? null : trailers.get(key);
    }

    @Nullable String header(Metadata.Key<String> key) {
      return headers == null ? null : headers.get(key);
    }

    /** The generated text of a stream: its token events concatenated. */
    String text() {
      StringBuilder sb = new StringBuilder();
      for (T m : messages) {
        if (m instanceof StreamEvent e && e.hasToken()) {
          sb.append(e.getToken().getText());
        }
      }
      return sb.toString();
    }

    List<StreamEvent> errorEvents() {
      return messages.stream().filter(m -> m instanceof StreamEvent e && e.hasError())
          .map(m -> (StreamEvent) m).toList();
    }
  }

  private static final class Recorder<T> implements ClientResponseObserver<Object, T> {
    final List<T> messages = Collections.synchronizedList(new ArrayList<>());
    final AtomicReference<Metadata> headers = new AtomicReference<>();
    final AtomicReference<Metadata> trailers = new AtomicReference<>();
    final CompletableFuture<Status> done = new CompletableFuture<>();
    private final BiConsumer<T, ClientCallStreamObserver<?>> onEvent;
    private @Nullable ClientCallStreamObserver<?> call;

    Recorder(BiConsumer<T, ClientCallStreamObserver<?>> onEvent) {
      this.onEvent = onEvent;
    }

    @Override
    public void beforeStart(ClientCallStreamObserver<Object> requestStream) {
      call = requestStream;
    }

    @Override
    public void onNext(T value) {
      messages.add(value);
      onEvent.accept(value, call);
    }

    @Override
    public void onError(Throwable t) {
      done.complete(Status.fromThrowable(t));
    }

    @Override
    public void onCompleted() {
      done.complete(Status.OK);
    }

    Outcome<T> await() {
      try {
        Status status = done.get(30, TimeUnit.SECONDS);
        return new Outcome<>(List.copyOf(messages), status, headers.get(), trailers.get());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      } catch (ExecutionException | TimeoutException e) {
        throw new AssertionError("the call did not end within 30 s", e);
      }
    }
  }
}
