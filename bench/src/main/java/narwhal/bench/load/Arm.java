package narwhal.bench.load;

/** The three ways a request reaches the engines. */
public enum Arm {
  /** The generator runs the prefill leg, then the decode leg, itself: no router at all. */
  DIRECT("direct", true),
  /** One streamed request to Narwhal, which runs both legs. */
  NARWHAL("narwhal", false),
  /** The generator runs the prefill leg; nginx relays the decode leg's SSE stream. */
  NGINX("nginx", true);

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

  public static Arm parse(String s) {
    for (Arm a : values()) {
      if (a.label.equalsIgnoreCase(s.trim())) {
        return a;
      }
    }
    throw new IllegalArgumentException("unknown arm '" + s + "' (direct, narwhal, nginx)");
  }
}
