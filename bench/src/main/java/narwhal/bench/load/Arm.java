package narwhal.bench.load;

import java.util.Arrays;
import java.util.stream.Collectors;

/** The ways a request reaches the engines. */
public enum Arm {
  /** The generator runs the prefill leg, then the decode leg, itself: no router at all. */
  DIRECT("direct", true),
  /** One streamed request to Narwhal, which runs both legs. */
  NARWHAL("narwhal", false),
  /** The generator runs the prefill leg; nginx relays the decode leg's SSE stream. */
  NGINX("nginx", true),
  /**
   * The generator runs both legs through nginx (the prefill leg to its prefill port, the decode
   * leg to its decode port): every hop the router makes, made by a C proxy. Not the targets'
   * reference (that is {@link #NGINX}); the floor for what relaying both legs costs on the machine.
   */
  NGINX_BOTH("nginx-both", true);

  private final String label;
  private final boolean clientRunsPrefill;

  Arm(String label, boolean clientRunsPrefill) {
    this.label = label;
    this.clientRunsPrefill = clientRunsPrefill;
  }

  public String label() {
    return label;
  }

  public boolean clientRunsPrefill() {
    return clientRunsPrefill;
  }

  /** An nginx arm: its CPU and memory are nginx's master and workers. */
  public boolean nginx() {
    return this == NGINX || this == NGINX_BOTH;
  }

  public static Arm parse(String s) {
    for (Arm a : values()) {
      if (a.label.equalsIgnoreCase(s.trim())) {
        return a;
      }
    }
    throw new IllegalArgumentException("unknown arm '" + s + "' ("
        + Arrays.stream(values()).map(Arm::label).collect(Collectors.joining(", ")) + ")");
  }
}
