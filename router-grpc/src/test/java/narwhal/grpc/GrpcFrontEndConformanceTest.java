package narwhal.grpc;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import narwhal.api.FrontEnd;
import narwhal.grpc.v1.RouterGrpc;
import narwhal.proto.v1.Completion;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.Prompt;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.StreamEvent;
import narwhal.testing.ScriptedCompletionService;
import narwhal.testing.frontend.FrontEndConformanceSuite;
import narwhal.testing.frontend.FrontEndUnderTest;

/**
 * The gRPC front-end passes the front-end conformance suite, over a real HTTP/2 port: {@code
 * StreamCompletion} for streamed requests, {@code Complete} for whole ones.
 */
class GrpcFrontEndConformanceTest extends FrontEndConformanceSuite {

  private static final long MAX_REQUEST_BYTES = 64 << 10;
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> TRACEPARENT =
      Metadata.Key.of("traceparent", Metadata.ASCII_STRING_MARSHALLER);
  private static final Metadata.Key<String> WWW_AUTHENTICATE =
      Metadata.Key.of("www-authenticate", Metadata.ASCII_STRING_MARSHALLER);

  @Override
  protected FrontEndUnderTest start(ScriptedCompletionService service) {
    return new Grpc(service);
  }

  private static final class Grpc implements FrontEndUnderTest {
    private final EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final EventLoopGroup workers = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final GrpcFrontEnd frontEnd;
    private final ManagedChannel channel;

    Grpc(ScriptedCompletionService service) {
      frontEnd = GrpcFrontEnd.start(new GrpcFrontEndOptions("127.0.0.1", 0, MAX_REQUEST_BYTES, 1 << 20), service,
          boss, workers, NioServerSocketChannel.class, Clock.systemUTC());
      channel = NettyChannelBuilder.forAddress("127.0.0.1", frontEnd.port()).usePlaintext()
          .maxInboundMessageSize(8 << 20).build();
    }

    @Override
    public FrontEnd frontEnd() {
      return FrontEnd.GRPC;
    }

    @Override
    public boolean carriesClientDeadline() {
      return true;
    }

    @Override
    public long maxRequestBytes() {
      return MAX_REQUEST_BYTES;
    }

    @Override
    public Answer send(Request request) throws Exception {
      Exchange exchange = start(request);
      exchange.call.sendMessage(message(request));
      exchange.call.halfClose();
      return exchange.answer.get(20, TimeUnit.SECONDS);
    }

    @Override
    public void sendAndLeaveAfterFirstToken(Request request) throws Exception {
      Exchange exchange = start(request);
      exchange.call.sendMessage(message(request));
      exchange.call.halfClose();
      if (!exchange.firstToken.await(10, TimeUnit.SECONDS)) {
        throw new AssertionError("no first token arrived");
      }
      exchange.call.cancel("the client leaves", null);
    }

    @Override
    public Partial begin(Request request) {
      Exchange exchange = start(request, true);
      return new Partial() {
        @Override
        public Answer finish() throws Exception {
          exchange.call.sendMessage(message(request));
          exchange.call.halfClose();
          return exchange.answer.get(20, TimeUnit.SECONDS);
        }

        @Override
        public void close() {
          exchange.call.cancel("done", null);
        }
      };
    }

    @Override
    public void close() {
      channel.shutdownNow();
      frontEnd.close();
      workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
      boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static CompletionRequest message(Request request) {
      CompletionRequest.Builder m = CompletionRequest.newBuilder().setRoute(Route.ROUTE_COMPLETIONS).setMaxTokens(8);
      if (request.prompt() != null) {
        m.setPrompt(Prompt.newBuilder().setText(request.prompt()));
      }
      if (request.model() != null) {
        m.setModel(request.model());
      }
      return m.build();
    }

    /** One call, its metadata sent, its message not yet. */
    private record Exchange(ClientCall<CompletionRequest, Object> call, CompletableFuture<Answer> answer,
        CountDownLatch firstToken) {}

    private Exchange start(Request request) {
      return start(request, false);
    }

    /**
     * @param headersFirst send the call's headers at once: grpc-java's client holds them back until
     *     the message for a method whose client sends one message, so the call is described to it
     *     as bidirectional (the server serves it by its name, whatever the client calls it)
     */
    @SuppressWarnings("unchecked")
    private Exchange start(Request request, boolean headersFirst) {
      MethodDescriptor<CompletionRequest, ?> method =
          request.stream() ? RouterGrpc.getStreamCompletionMethod() : RouterGrpc.getCompleteMethod();
      if (headersFirst) {
        method = method.toBuilder().setType(MethodDescriptor.MethodType.BIDI_STREAMING).build();
      }
      CallOptions options = CallOptions.DEFAULT;
      if (request.deadline() != null) {
        options = options.withDeadlineAfter(request.deadline().toMillis(), TimeUnit.MILLISECONDS);
      }
      ClientCall<CompletionRequest, Object> call =
          channel.newCall((MethodDescriptor<CompletionRequest, Object>) method, options);
      Metadata headers = new Metadata();
      if (request.authorization() != null) {
        headers.put(AUTHORIZATION, request.authorization());
      }
      if (request.clientRequestId() != null) {
        headers.put(GrpcErrors.REQUEST_ID, request.clientRequestId());
      }
      if (request.traceparent() != null) {
        headers.put(TRACEPARENT, request.traceparent());
      }
      CompletableFuture<Answer> answer = new CompletableFuture<>();
      CountDownLatch firstToken = new CountDownLatch(1);
      call.start(new ClientCall.Listener<>() {
        private final StringBuilder text = new StringBuilder();
        private boolean committed;
        private boolean done;
        private String requestId;
        private String streamError;

        @Override
        public void onHeaders(Metadata responseHeaders) {
          requestId = responseHeaders.get(GrpcErrors.REQUEST_ID);
        }

        @Override
        public void onMessage(Object message) {
          if (message instanceof StreamEvent event) {
            if (event.hasToken()) {
              committed = true;
              text.append(event.getToken().getText());
              firstToken.countDown();
            } else if (event.hasDone()) {
              done = true;
            } else if (event.hasError()) {
              streamError = event.getError().getMessage();
            }
          } else if (message instanceof Completion whole) {
            text.append(whole.getText());
            done = true;
          }
          call.request(1);
        }

        @Override
        public void onClose(Status status, Metadata trailers) {
          String rid = requestId != null ? requestId : trailers.get(GrpcErrors.REQUEST_ID);
          boolean challenged = trailers.containsKey(WWW_AUTHENTICATE);
          if (status.isOk()) {
            answer.complete(new Answer(200, text.toString(), committed, done, null, rid, challenged));
            return;
          }
          String httpStatus = trailers.get(GrpcErrors.HTTP_STATUS);
          int code = httpStatus == null ? -status.getCode().value() : Integer.parseInt(httpStatus);
          String message = streamError != null ? streamError : status.getDescription();
          answer.complete(new Answer(code, text.toString(), committed, false, message, rid, challenged));
        }
      }, headers);
      call.request(1);
      return new Exchange(call, answer, firstToken);
    }
  }
}
