package narwhal.http;

import narwhal.api.OffLoopPool;
import narwhal.testing.CountingPool;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.concurrent.FastThreadLocalThread;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.ArrayList;
import java.util.List;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import narwhal.openai.OpenAiRequestCodec;
import narwhal.testing.ScriptedCompletionService;
import narwhal.testing.ScriptedCompletionService.Ticket;
import org.junit.jupiter.api.Test;

/**
 * Large bodies are decoded off the event loop: the loop keeps serving other connections while a
 * multi-MiB body decodes, and a client that leaves meanwhile frees its seat exactly once.
 */
class BodyDecodingTest extends FrontEndTestSupport {

  @Override
  HttpFrontEndOptions options() {
    return new HttpFrontEndOptions("127.0.0.1", 0, 4L << 20, 1 << 20);
  }

  /** A chat body of {@code messages} short messages (about 37 bytes each). */
  static String bigChat(int messages) {
    StringBuilder body = new StringBuilder(messages * 40).append("{\"messages\":[");
    for (int i = 0; i < messages; i++) {
      body.append(i == 0 ? "" : ",").append("{\"role\":\"user\",\"content\":\"hello ").append(i).append("\"}");
    }
    return body.append("]}").toString();
  }

  /** A parser that records its thread and waits for the test before decoding. */
  /** The router's pool (one thread) as the front-end uses it, counting finished decodes. */
  private final CountingPool pool = new CountingPool(OffLoopPool.create(OffLoopPool.INLINE_LIMIT, 1, 256));

  private static final class GatedParser implements BodyDecoder.Parser {
    final AtomicReference<Thread> thread = new AtomicReference<>();
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public narwhal.proto.v1.CompletionRequest parse(
        byte[] body, narwhal.proto.v1.Route route, String clientRequestId)
        throws narwhal.api.InvalidRequestException {
      thread.set(Thread.currentThread());
      entered.countDown();
      try {
        if (!release.await(20, TimeUnit.SECONDS)) {
          throw new AssertionError("the test never released the parser");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return OpenAiRequestCodec.parse(body, route, clientRequestId);
    }
  }

  /** Restarts the front-end on a single event loop, so every connection shares the parse's loop. */
  private MultiThreadIoEventLoopGroup restartOnOneLoop(BodyDecoder decoder) {
    frontEnd.close();
    MultiThreadIoEventLoopGroup loop = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    frontEnd = HttpFrontEnd.start(options(), service, loop, loop, NioServerSocketChannel.class,
        Clock.systemUTC(), null, decoder);
    return loop;
  }

  @Test
  void largeBody_decodesOnTheDecoderThreads_whileTheSameLoopServesHealth() throws Exception {
    GatedParser parser = new GatedParser();
    MultiThreadIoEventLoopGroup loop = restartOnOneLoop(new BodyDecoder(parser, pool));
    try (RawHttpConnection big = new RawHttpConnection(frontEnd.port());
        RawHttpConnection other = new RawHttpConnection(frontEnd.port())) {
      big.post("/v1/chat/completions", bigChat(1_000));
      assertThat(parser.entered.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(parser.thread.get()).isNotInstanceOf(FastThreadLocalThread.class);
      assertThat(parser.thread.get().getName()).startsWith("narwhal-decode-");

      // The one event loop is free while the body decodes: a parse on it would hold this for 20 s.
      other.send("GET /health HTTP/1.1\r\nHost: test\r\n\r\n");
      assertThat(other.readResponse().status()).isEqualTo(200);

      parser.release.countDown();
      ScriptedCompletionService.Call call = service.nextCall();
      assertThat(call.request.getChat().getMessagesCount()).isEqualTo(1_000);
    } finally {
      parser.release.countDown();
      frontEnd.close();
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @Test
  void clientGoneWhileDecoding_freesTheSeatOnce_andNothingIsSubmitted() throws Exception {
    GatedParser parser = new GatedParser();
    MultiThreadIoEventLoopGroup loop = restartOnOneLoop(new BodyDecoder(parser, pool));
    try {
      try (RawHttpConnection big = new RawHttpConnection(frontEnd.port())) {
        big.post("/v1/chat/completions", bigChat(1_000));
        assertThat(parser.entered.await(10, TimeUnit.SECONDS)).isTrue();
      }
      Ticket ticket = service.tickets.poll(10, TimeUnit.SECONDS);
      assertThat(ticket).isNotNull();
      await("the seat freed", () -> !ticket.endings.isEmpty());
      parser.release.countDown();
      // The decoded result comes back to a closed connection and is dropped.
      await("the decode finished", () -> pool.finished() == 1);
      try (RawHttpConnection probe = new RawHttpConnection(frontEnd.port())) {
        probe.send("GET /health HTTP/1.1\r\nHost: test\r\n\r\n");
        probe.readResponse(); // served on the same loop, after the decoded result's hop back
      }
      assertThat(ticket.endings).containsExactly("abandon");
      assertThat(service.pendingCalls()).isZero();
    } finally {
      parser.release.countDown();
      frontEnd.close();
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

  @Test
  void hundredThousandMessages_healthOnTheSameLoopIsNotHeldByTheDecode() throws Exception {
    byte[] body = bigChat(100_000).getBytes(StandardCharsets.UTF_8);
    assertThat(body.length).isGreaterThan(3 << 20);
    AtomicLong decodeStart = new AtomicLong();
    AtomicLong decodeEnd = new AtomicLong();
    BodyDecoder.Parser timed = (bytes, route, id) -> {
      decodeStart.set(System.nanoTime());
      try {
        return OpenAiRequestCodec.parse(bytes, route, id);
      } finally {
        decodeEnd.set(System.nanoTime());
      }
    };
    MultiThreadIoEventLoopGroup loop = restartOnOneLoop(new BodyDecoder(timed, pool));
    try (RawHttpConnection big = new RawHttpConnection(frontEnd.port());
        RawHttpConnection other = new RawHttpConnection(frontEnd.port())) {
      // A first answer loads what /health needs, so the polls below time the loop, not class loading.
      other.send("GET /health HTTP/1.1\r\nHost: test\r\n\r\n");
      assertThat(other.readResponse().status()).isEqualTo(200);
      big.send(("POST /v1/chat/completions HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
          + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      big.send(body);
      // Poll /health on the same loop until the big request is submitted, keeping the polls that
      // overlapped the decode: with the decode on the loop, the one in flight when it began waits
      // for all of it.
      List<long[]> polls = new ArrayList<>();
      while (service.pendingCalls() == 0 && polls.size() < 5_000) {
        long t0 = System.nanoTime();
        other.send("GET /health HTTP/1.1\r\nHost: test\r\n\r\n");
        assertThat(other.readResponse().status()).isEqualTo(200);
        polls.add(new long[] {t0, System.nanoTime()});
      }
      assertThat(service.nextCall().request.getChat().getMessagesCount()).isEqualTo(100_000);
      long from = decodeStart.get();
      long to = decodeEnd.get();
      long decodeMillis = TimeUnit.NANOSECONDS.toMillis(to - from);
      long slowest = polls.stream().filter(p -> p[1] > from && p[0] < to)
          .mapToLong(p -> TimeUnit.NANOSECONDS.toMillis(p[1] - p[0])).max().orElse(0);
      // Relative, for a loaded shared machine: decoded on the loop, a poll waits for (nearly) the
      // whole decode; off it, measured here at 0.1-0.3 of it (CPU contention and GC, not the loop).
      assertThat(slowest).as("slowest /health while a %d ms decode ran", decodeMillis)
          .isLessThan(decodeMillis / 2);
    } finally {
      frontEnd.close();
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
  }

}
