package narwhal.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseParserTest {

  private final List<String> events = new ArrayList<>();
  private final SseParser parser =
      new SseParser((data, length) -> events.add(new String(data, 0, length, StandardCharsets.UTF_8)));

  private void feed(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    parser.feed(b, 0, b.length);
  }

  @Test
  void feed_eventsSplitAtEveryByte_areReassembled() {
    String stream = "data: {\"text\":\" alpha\"}\n\ndata: {\"text\":\" orca\"}\n\ndata: [DONE]\n\n";
    for (char c : stream.toCharArray()) {
      feed(String.valueOf(c));
    }
    assertThat(events).containsExactly("{\"text\":\" alpha\"}", "{\"text\":\" orca\"}", "[DONE]");
  }

  @Test
  void feed_severalEventsInOneChunk_dispatchesEachInOrder() {
    feed("data: a\n\ndata: b\n\ndata: c\n\n");
    assertThat(events).containsExactly("a", "b", "c");
  }

  @Test
  void feed_crlfAndCrLineEnds_areAccepted() {
    feed("data: one\r\n\r\ndata: two\r\rdata: three\n\n");
    assertThat(events).containsExactly("one", "two", "three");
  }

  @Test
  void feed_multiLineDataAndOtherFields_joinsDataIgnoresTheRest() {
    feed(": a comment\nevent: message\nid: 7\ndata: first\ndata:second\nretry: 10\n\n");
    assertThat(events).containsExactly("first\nsecond");
  }

  @Test
  void feed_incompleteEvent_waitsForItsBlankLine() {
    feed("data: partial");
    assertThat(events).isEmpty();
    feed("\n");
    assertThat(events).isEmpty();
    feed("\n");
    assertThat(events).containsExactly("partial");
  }

  @Test
  void feed_directByteBuf_isParsedWithoutConsumingIt() {
    ByteBuf direct = Unpooled.directBuffer();
    try {
      direct.writeCharSequence("data: x\n\n", StandardCharsets.UTF_8);
      parser.feed(direct);
      assertThat(events).containsExactly("x");
      assertThat(direct.readableBytes()).isEqualTo(9);
    } finally {
      direct.release();
    }
  }

  @Test
  void feed_eventLargerThanTheInitialBuffers_grows() {
    String big = "x".repeat(5000);
    feed("data: " + big + "\n\n");
    assertThat(events).containsExactly(big);
  }
}
