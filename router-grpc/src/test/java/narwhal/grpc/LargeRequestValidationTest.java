package narwhal.grpc;

import narwhal.testing.CountingPool;
import narwhal.api.OffLoopPool;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import narwhal.grpc.v1.RouterGrpc;
import narwhal.proto.v1.ChatMessage;
import narwhal.proto.v1.ChatMessages;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.ListModelsRequest;
import narwhal.proto.v1.Route;
import narwhal.proto.v1.StreamEvent;
import narwhal.testing.Poll;
import narwhal.testing.ScriptedCompletionService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A large request is validated off the event loop: another call on the same (only) loop is served
 * meanwhile, the result hops back to the call's loop, and a call that ends while it waits drops its
 * result without submitting or recording anything.
 */
class LargeRequestValidationTest {

  @RegisterExtension
  final GrpcCleanupExtension cleanup = new GrpcCleanupExtension();

  private final EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  /** One loop: the large call and the probe share it. */
  private final EventLoopGroup workers = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
  private final ScriptedCompletionService service = new ScriptedCompletionService();
  private final Gate gate = new Gate();
  private GrpcFrontEnd frontEnd;
  private ManagedChannel channel;

  /** A check that records where it ran and, while closed, waits for the test. */
  private static final class Gate implements RequestValidator.Check {
    final List<Thread> threads = new CopyOnWriteArrayList<>();
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicLong lastNanos = new AtomicLong();
    volatile boolean gated = true;

    @Override
    public CompletionRequest apply(CompletionRequest shaped) throws narwhal.api.InvalidRequestException {
      threads.add(Thread.currentThread());
      entered.countDown();
      if (gated) {
        try {
          release.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      long t0 = System.nanoTime();
      CompletionRequest valid = RequestValidator.Check.standard().apply(shaped);
      lastNanos.set(System.nanoTime() - t0);
      return valid;
    }
  }

  /** The router's pool as the front-end uses it, counting the tasks that ran to the end. */
  private CountingPool pool;

  private void start(int inlineLimit) {
    pool = new CountingPool(OffLoopPool.create(inlineLimit, 1, 64));
    RequestValidator validator = new RequestValidator(gate, pool);
    frontEnd = GrpcFrontEnd.start(new GrpcFrontEndOptions("127.0.0.1", 0, 8 << 20, 1 << 20), service, boss, workers,
        NioServerSocketChannel.class, Clock.systemUTC(), validator);
    channel = cleanup.register(NettyChannelBuilder.forAddress("127.0.0.1", frontEnd.port())
        .usePlaintext().maxInboundMessageSize(16 << 20).build());
  }

  @AfterEach
  void stop() {
    gate.release.countDown();
    if (frontEnd != null) {
      frontEnd.close();
    }
    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  static CompletionRequest bigChat(int messages) {
    ChatMessages.Builder chat = ChatMessages.newBuilder();
    for (int i = 0; i < messages; i++) {
      chat.addMessages(ChatMessage.newBuilder().setRole("user").setText("hello " + i));
    }
    return CompletionRequest.newBuilder().setRoute(Route.ROUTE_CHAT_COMPLETIONS).setChat(chat).setMaxTokens(4).build();
  }

  /** Sends a StreamCompletion; the future completes with the call's status. */
  private CompletableFuture<Status> send(CompletionRequest request, Duration deadline) {
    CompletableFuture<Status> done = new CompletableFuture<>();
    RouterGrpc.newStub(channel).withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)
        .streamCompletion(request, new StreamObserver<StreamEvent>() {
          @Override
          public void onNext(StreamEvent value) {}

          @Override
          public void onError(Throwable t) {
            done.complete(Status.fromThrowable(t));
          }

          @Override
          public void onCompleted() {
            done.complete(Status.OK);
          }
        });
    return done;
  }

  /** How long a ListModels call on the same loop takes. */
  private long probeNanos() {
    long t0 = System.nanoTime();
    RouterGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS)
        .listModels(ListModelsRequest.getDefaultInstance());
    return System.nanoTime() - t0;
  }

  @Test
  void whileALargeRequestIsValidated_anotherCallOnTheSameLoopIsServed() throws Exception {
    start(OffLoopPool.INLINE_LIMIT);
    probeNanos(); // connected and warm

    send(bigChat(20_000), Duration.ofSeconds(30));
    assertThat(gate.entered.await(10, TimeUnit.SECONDS)).isTrue();

    // The validation is held; a call on the loop is answered regardless.
    assertThat(probeNanos()).isLessThan(TimeUnit.SECONDS.toNanos(2));
    assertThat(gate.threads).singleElement().satisfies(t -> assertThat(t.getName()).startsWith("narwhal-decode-"));

    gate.release.countDown();
    Poll.until("the request submitted", Duration.ofSeconds(10), () -> service.calls.size() == 1);
    // Submitted on the call's loop (the scripted service asserts it), with the validated request.
    assertThat(service.onlyCall().request.getChat().getMessagesCount()).isEqualTo(20_000);
    assertThat(service.tickets).singleElement().satisfies(t -> assertThat(t.endings).isEmpty());
  }

  @Test
  void theLoopIsNotHeldForTheValidationTime() throws Exception {
    gate.gated = false;
    start(OffLoopPool.INLINE_LIMIT);
    probeNanos();

    CompletableFuture<Status> big = send(bigChat(100_000), Duration.ofSeconds(60));
    long worst = 0;
    while (service.calls.isEmpty() && !big.isDone()) {
      worst = Math.max(worst, probeNanos());
    }
    Poll.until("the request submitted", Duration.ofSeconds(30), () -> service.calls.size() == 1);
    long validation = gate.lastNanos.get();
    // Validating 100k messages takes hundreds of milliseconds; a probe meanwhile never waits for
    // all of it. (Half of it was the bound once; on a busy two-core CI machine a probe also queues
    // behind the message's own decoding and the scheduler, and missed that by 2 %. That the loop
    // is free while validation runs is shown without timing by the gated test above.)
    assertThat(validation).isGreaterThan(TimeUnit.MILLISECONDS.toNanos(50));
    assertThat(worst).as("worst probe %d ms, validation %d ms", worst / 1_000_000, validation / 1_000_000)
        .isLessThan(validation);
  }

  @Test
  void callsThatEndWhileValidating_dropTheirResults_andOneStillQueuedNeverRuns() throws Exception {
    start(OffLoopPool.INLINE_LIMIT);
    CompletableFuture<Status> running = send(bigChat(5_000), Duration.ofSeconds(3));
    assertThat(gate.entered.await(10, TimeUnit.SECONDS)).isTrue();
    CompletableFuture<Status> queued = send(bigChat(5_001), Duration.ofSeconds(3));

    assertThat(running.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(queued.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    // The client sees its deadline before the server's cancellation runs: wait for both to arrive.
    // Each call's admitted ticket ends then, at its deadline: expired, once.
    Poll.until("both calls' cancellations ended their tickets", Duration.ofSeconds(10),
        () -> service.tickets.stream().allMatch(t -> !t.endings.isEmpty()) && service.tickets.size() == 2);
    gate.release.countDown();
    Poll.until("the running validation finished", Duration.ofSeconds(10), () -> pool.finished() == 1);
    probeNanos(); // the loop has run whatever the validation sent back (it hopped there before this call)

    // The running one finished and its result was dropped; the queued one was removed unrun.
    assertThat(gate.threads).hasSize(1);
    assertThat(pool.finished()).isEqualTo(1);
    assertThat(service.calls).isEmpty();
    assertThat(service.tickets).allSatisfy(t -> assertThat(t.endings).containsExactly("expired:504"));
  }
}
