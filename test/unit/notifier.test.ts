import { describe, expect, it } from "vitest";
import { createStore } from "zustand/vanilla";
import type { AttentionState } from "../../src/store/attention/attentionStore.js";
import type { AttentionItem } from "../../src/store/attention/queue.js";
import {
  type AttentionReason,
  DEFAULT_ATTENTION,
  reasonText,
} from "../../src/store/attention/reasons.js";
import { osc9, osc777, oscText, tmuxPassthrough } from "../../src/text/notification.js";
import {
  Notifier,
  type NotifyPolicy,
  notificationBytes,
  notifyPolicyFromEnv,
} from "../../src/ui/model/notifier.js";
import { ManualClock } from "../helpers/manualClock.js";

/** Notifications: the exact bytes written, how they are coalesced, and what the env asks for. */

const DETAIL: Record<string, string> = {
  failed: "build broke",
  approval: "Deploy the updated landing page to production?",
};

function item(sessionId: string, reason: AttentionReason = "failed"): AttentionItem {
  const detail = DETAIL[reason] ?? "";
  return {
    sessionId,
    reason,
    detail,
    message: reasonText(reason, detail),
    since: 0,
    sinceFrom: "record",
    source: "stream",
    seen: false,
    notify: true,
    approval: null,
  };
}

function setup(policy: NotifyPolicy) {
  const timers = new ManualClock();
  const attention = createStore<AttentionState>()(() => ({
    items: [],
    raisedVersion: 0,
    lastRaised: [],
    changeVersion: 0,
    lastChanges: { arrived: [], left: [] },
    partial: null,
    config: DEFAULT_ATTENTION,
    acknowledge() {},
    looked() {},
  }));
  const raise = (...items: AttentionItem[]) =>
    attention.setState((s) => ({ raisedVersion: s.raisedVersion + 1, lastRaised: items }));
  const written: string[] = [];
  const n = new Notifier({
    attention,
    policy,
    write: (b) => written.push(b),
    nameOf: (id) => (id === "ses_a" ? "Fix flaky CI" : null),
    timers,
  });
  n.start();
  return { timers, raise, written, n };
}

const BELL: NotifyPolicy = { bell: true, osc: false, oscKind: "9", tmux: false };
const OSC9: NotifyPolicy = { bell: false, osc: true, oscKind: "9", tmux: false };

describe("notification bytes", () => {
  it("OSC 9 names the session and the reason, ended by BEL", () => {
    expect(notificationBytes([item("ses_a")], OSC9, () => "Fix flaky CI")).toBe(
      "\x1b]9;agent-sessions: a session needs you: Fix flaky CI (ses_a) failed: build broke\x07",
    );
  });

  it("OSC 777 notify with title and body; both channels put the bell after the OSC", () => {
    const both: NotifyPolicy = { bell: true, osc: true, oscKind: "777", tmux: false };
    expect(notificationBytes([item("ses_a"), item("ses_b", "approval")], both, () => null)).toBe(
      "\x1b]777;notify;agent-sessions: sessions need you;ses_a failed: build broke, ses_b awaiting approval: Deploy the updated landing page to production?\x07\x07",
    );
  });

  it("inside tmux the OSC goes through its passthrough with ESC doubled", () => {
    const tmux: NotifyPolicy = { bell: false, osc: true, oscKind: "9", tmux: true };
    expect(notificationBytes([item("ses_a")], tmux, () => null)).toBe(
      "\x1bPtmux;\x1b\x1b]9;agent-sessions: a session needs you: ses_a failed: build broke\x07\x1b\\",
    );
    expect(tmuxPassthrough("\x1b]9;x\x07")).toBe("\x1bPtmux;\x1b\x1b]9;x\x07\x1b\\");
  });

  it("a hostile session name cannot end the OSC early or smuggle a sequence", () => {
    const name = "evil\x07\x1b]52;c;SGVsbG8=\x07\x1b[2J\u202enot\nnow;x\x9c";
    const bytes = notificationBytes([item("ses_a")], OSC9, () => name);
    // One OSC, one terminator: nothing inside it is a control character.
    expect(bytes.startsWith("\x1b]9;")).toBe(true);
    expect(bytes.endsWith("\x07")).toBe(true);
    const inside = bytes.slice(4, -1);
    expect(inside).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202a-\u202e]/);
    expect(inside).toBe(
      "agent-sessions: a session needs you: evilnot now;x (ses_a) failed: build broke",
    );
    // In OSC 777 the field separator is not allowed into a field.
    expect(osc777("t;i;t", "b;o;d;y")).toBe("\x1b]777;notify;t,i,t;b,o,d,y\x07");
    expect(osc9("a\x1b\\b")).toBe("\x1b]9;ab\x07");
    expect(oscText("x".repeat(300)).length).toBe(200);
  });

  it("the bell alone is one BEL", () => {
    expect(notificationBytes([item("ses_a"), item("ses_b")], BELL, () => null)).toBe("\x07");
  });
});

describe("notifier", () => {
  it("waits a second for other transitions and tells them in one notification", () => {
    const { timers, raise, written } = setup(OSC9);
    raise(item("ses_a"));
    timers.advanceNow(500);
    raise(item("ses_b", "approval"));
    expect(written).toEqual([]);
    timers.advanceNow(500);
    expect(written).toEqual([
      "\x1b]9;agent-sessions: sessions need you: Fix flaky CI (ses_a) failed: build broke; ses_b awaiting approval: Deploy the updated landing page to production?\x07",
    ]);
  });

  it("at most one bell per session per transition: the same one raised twice rings once", () => {
    const { timers, raise, written } = setup(BELL);
    raise(item("ses_a"));
    raise(item("ses_a"));
    timers.advanceNow(1000);
    expect(written).toEqual(["\x07"]);
  });

  it("after a notification, further transitions wait out a quiet spell and go as one", () => {
    const { timers, raise, written, n } = setup(BELL);
    raise(item("ses_a"));
    timers.advanceNow(1000);
    expect(written).toHaveLength(1);
    for (const id of ["ses_b", "ses_c", "ses_d", "ses_e", "ses_f"]) {
      raise(item(id));
      timers.advanceNow(1500);
    }
    // Six pauses in 8.5 s: the first rang at once, the five others wait for the quiet spell.
    expect(written).toHaveLength(1);
    timers.advanceNow(10_000);
    expect(written).toEqual(["\x07", "\x07"]);
    expect(n.sent).toBe(2);
  });

  it("off writes nothing", () => {
    const off: NotifyPolicy = { bell: false, osc: false, oscKind: "9", tmux: false };
    const { timers, raise, written } = setup(off);
    raise(item("ses_a"));
    timers.advanceNow(20_000);
    expect(written).toEqual([]);
  });
});

describe("policy from the environment", () => {
  it("defaults to the bell; AGENT_SESSIONS_BELL=0 takes the bell out of whatever is asked", () => {
    expect(notifyPolicyFromEnv({}).policy).toEqual({
      bell: true,
      osc: false,
      oscKind: "9",
      tmux: false,
    });
    expect(notifyPolicyFromEnv({ AGENT_SESSIONS_BELL: "0" }).policy.bell).toBe(false);
    expect(
      notifyPolicyFromEnv({ AGENT_SESSIONS_NOTIFY: "both", AGENT_SESSIONS_BELL: "0" }).policy,
    ).toMatchObject({ bell: false, osc: true });
  });

  it("bell, osc, both, off; anything else is a warning and the default", () => {
    const p = (v: string) => notifyPolicyFromEnv({ AGENT_SESSIONS_NOTIFY: v });
    expect(p("osc").policy).toMatchObject({ bell: false, osc: true });
    expect(p("BOTH").policy).toMatchObject({ bell: true, osc: true });
    expect(p("off").policy).toMatchObject({ bell: false, osc: false });
    const bad = p("loud");
    expect(bad.policy).toMatchObject({ bell: true, osc: false });
    expect(bad.warning).toBe(
      'ignoring AGENT_SESSIONS_NOTIFY="loud": expected bell, osc, both, off',
    );
  });

  it("OSC 777 where the terminal asks for it (VTE, urxvt, foot), and tmux's passthrough", () => {
    expect(notifyPolicyFromEnv({ VTE_VERSION: "7600" }).policy.oscKind).toBe("777");
    expect(notifyPolicyFromEnv({ TERM: "rxvt-unicode-256color" }).policy.oscKind).toBe("777");
    expect(notifyPolicyFromEnv({ TERM: "foot" }).policy.oscKind).toBe("777");
    expect(notifyPolicyFromEnv({ TERM: "xterm-256color" }).policy.oscKind).toBe("9");
    expect(notifyPolicyFromEnv({ TMUX: "/tmp/tmux-1/default,1,0" }).policy.tmux).toBe(true);
  });
});
