package narwhal.engine.http;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseEventParserTest {

  private static final int NO_LIMIT = 1 << 20;

  private final List<String> events = new ArrayList<>();

  /** Feeds each piece in its own pooled buffer, checking the parser leaves the buffer untouched. */
  private static void feed(SseEventParser parser, byte[] piece) throws Exception {
    ByteBuf buf = ByteBufAllocator.DEFAULT.buffer(piece.length + 4);
    try {
      buf.writeBytes(new byte[] {9, 9}).readerIndex(2); // readable bytes start past index 0
      buf.writeBytes(piece);
      parser.feed(buf);
      assertThat(buf.refCnt()).isEqualTo(1);
      assertThat(buf.readerIndex()).isEqualTo(2);
      assertThat(buf.readableBytes()).isEqualTo(piece.length);
    } finally {
      buf.release();
    }
  }

  private List<String> parse(String stream) throws Exception {
    return parse(stream.getBytes(UTF_8));
  }

  private List<String> parse(byte[]... pieces) throws Exception {
    SseEventParser parser = new SseEventParser(NO_LIMIT, events::add);
    for (byte[] piece : pieces) {
      feed(parser, piece);
    }
    return events;
  }

  @Test
  void singleEvent_isDispatchedOnTheBlankLine() throws Exception {
    SseEventParser parser = new SseEventParser(NO_LIMIT, events::add);

    feed(parser, "data: {\"a\":1}\n".getBytes(UTF_8));
    assertThat(events).isEmpty();
    feed(parser, "\n".getBytes(UTF_8));

    assertThat(events).containsExactly("{\"a\":1}");
  }

  @Test
  void onlyOneSpaceAfterTheColon_isDropped() throws Exception {
    assertThat(parse("data:x\n\ndata: y\n\ndata:  z\n\n")).containsExactly("x", "y", " z");
  }

  @Test
  void dataLines_areJoinedWithNewlines() throws Exception {
    assertThat(parse("data: a\ndata: b\ndata:\ndata: c\n\n")).containsExactly("a\nb\n\nc");
  }

  @Test
  void allThreeLineEndings_andMixtures_areAccepted() throws Exception {
    assertThat(parse("data: lf\n\ndata: crlf\r\n\r\ndata: cr\r\rdata: a\r\ndata: b\rdata: c\n\r\n"))
        .containsExactly("lf", "crlf", "cr", "a\nb\nc");
  }

  @Test
  void comments_areSkipped() throws Exception {
    assertThat(parse(": keep-alive\n\n:\ndata: x\n: inside\ndata: y\n\n")).containsExactly("x\ny");
  }

  @Test
  void eventIdRetryAndUnknownFields_areIgnored() throws Exception {
    assertThat(parse("event: message\nid: 42\nretry: 1000\nfoo: bar\nData: no\ndata: kept\n\n"))
        .containsExactly("kept");
  }

  @Test
  void dataWithoutColon_addsAnEmptyLine() throws Exception {
    assertThat(parse("data\ndata: x\n\n")).containsExactly("\nx");
  }

  @Test
  void colonInTheValue_isKept() throws Exception {
    assertThat(parse("data: {\"k\":\"v:w\"}\n\n")).containsExactly("{\"k\":\"v:w\"}");
  }

  @Test
  void blankEvents_areSkipped() throws Exception {
    assertThat(parse("\n\n\r\n\revent: ping\n\nid: 1\n\ndata:\n\ndata: \n\ndata: real\n\n"))
        .containsExactly("real");
  }

  @Test
  void unterminatedFinalEvent_isNotDispatched() throws Exception {
    assertThat(parse("data: done\n\ndata: half\n")).containsExactly("done");
    events.clear();
    assertThat(parse("data: done\n\ndata: hal")).containsExactly("done");
  }

  @Test
  void leadingByteOrderMark_isSkipped_onlyAtTheStart() throws Exception {
    assertThat(parse("\uFEFFdata: a\n\n\uFEFFdata: b\n\ndata: c\n\n")).containsExactly("a", "c");
  }

  @Test
  void multiByteCharacters_surviveAnySplit() throws Exception {
    byte[] bytes = "data: h\u00e9 \u20ac \uD83D\uDE00\n\n".getBytes(UTF_8);
    for (int i = 0; i <= bytes.length; i++) {
      events.clear();
      assertThat(parse(Arrays.copyOfRange(bytes, 0, i), Arrays.copyOfRange(bytes, i, bytes.length)))
          .as("split at %d", i)
          .containsExactly("h\u00e9 \u20ac \uD83D\uDE00");
    }
  }

  /** A stream exercising every rule, including CR LF pairs and multi-byte characters. */
  private static final String RICH =
      "\uFEFF: hello\r\n"
          + "data: {\"t\":\"\u00e9\"}\r\n\r\n"
          + "event: x\rid: 9\rdata:one\rdata: two\r\r"
          + "data\n\n"
          + "data: \u20ac\uD83D\uDE00\ndata\n\n"
          + "data: last\r\n\r\n";

  private static final List<String> RICH_EVENTS =
      List.of("{\"t\":\"\u00e9\"}", "one\ntwo", "\u20ac\uD83D\uDE00\n", "last");

  @Test
  void richStream_wholeAtOnce() throws Exception {
    assertThat(parse(RICH)).isEqualTo(RICH_EVENTS);
  }

  @Test
  void richStream_splitAtEveryBytePosition() throws Exception {
    byte[] bytes = RICH.getBytes(UTF_8);
    for (int i = 0; i <= bytes.length; i++) {
      events.clear();
      assertThat(parse(Arrays.copyOfRange(bytes, 0, i), Arrays.copyOfRange(bytes, i, bytes.length)))
          .as("split at %d", i)
          .isEqualTo(RICH_EVENTS);
    }
  }

  @Test
  void richStream_splitAtEveryPairOfPositions() throws Exception {
    byte[] bytes = RICH.getBytes(UTF_8);
    for (int i = 0; i <= bytes.length; i++) {
      for (int j = i; j <= bytes.length; j++) {
        events.clear();
        assertThat(
                parse(
                    Arrays.copyOfRange(bytes, 0, i),
                    Arrays.copyOfRange(bytes, i, j),
                    Arrays.copyOfRange(bytes, j, bytes.length)))
            .as("split at %d and %d", i, j)
            .isEqualTo(RICH_EVENTS);
      }
    }
  }

  @Test
  void richStream_oneByteAtATime() throws Exception {
    byte[] bytes = RICH.getBytes(UTF_8);
    byte[][] single = new byte[bytes.length][];
    for (int i = 0; i < bytes.length; i++) {
      single[i] = new byte[] {bytes[i]};
    }
    assertThat(parse(single)).isEqualTo(RICH_EVENTS);
  }

  @Test
  void eventOfExactlyTheLimit_isAccepted_andOneByteMoreIsNot() throws Exception {
    SseEventParser parser = new SseEventParser(10, events::add);
    feed(parser, "data: 0123456789\n\ndata: 01234\ndata: 3456\n\n".getBytes(UTF_8));
    assertThat(events).containsExactly("0123456789", "01234\n3456");

    SseEventParser tooSmall = new SseEventParser(10, events::add);
    assertThatThrownBy(() -> feed(tooSmall, "data: 01234\ndata: 45678\n\n".getBytes(UTF_8)))
        .isInstanceOf(SseEventParser.EventTooLargeException.class);
  }

  @Test
  void endlessLine_failsBeforeItEnds_andTheParserStaysFailed() throws Exception {
    SseEventParser parser = new SseEventParser(10, events::add);
    feed(parser, ": 0123456789".getBytes(UTF_8)); // 12 bytes: within 10 + "data: "
    assertThatThrownBy(() -> feed(parser, "01234".getBytes(UTF_8)))
        .isInstanceOf(SseEventParser.EventTooLargeException.class);

    assertThatThrownBy(() -> feed(parser, "\n\ndata: x\n\n".getBytes(UTF_8)))
        .isInstanceOf(IllegalStateException.class);
    assertThat(events).isEmpty();
  }

  @Test
  void sizeCountsUtf8Bytes_notCharacters() throws Exception {
    SseEventParser parser = new SseEventParser(4, events::add);
    feed(parser, "data: \u20ac\n\n".getBytes(UTF_8)); // 3 bytes
    assertThat(events).containsExactly("\u20ac");
    assertThatThrownBy(() -> feed(parser, "data: \u00e9\u00e9\u00e9\n\n".getBytes(UTF_8))) // 6 bytes
        .isInstanceOf(SseEventParser.EventTooLargeException.class);
  }

  @Test
  void largeEvent_afterwardsSmallEventsStillParse() throws Exception {
    String big = "y".repeat(200_000);
    assertThat(parse("data: " + big + "\n\ndata: small\n\n")).containsExactly(big, "small");
  }

  @Test
  void consumerException_propagatesFromFeed() {
    SseEventParser parser =
        new SseEventParser(
            NO_LIMIT,
            data -> {
              throw new IllegalStateException("rejected " + data);
            });

    assertThatThrownBy(() -> feed(parser, "data: x\n\n".getBytes(UTF_8)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("rejected x");
  }
}
