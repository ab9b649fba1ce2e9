import { Box } from "ink";
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from "react";
import { KeyRouterContext } from "./context/keyRouter.js";
import { ServicesContext } from "./context/servicesContext.js";
import { createTheme, ThemeContext } from "./context/theme.js";
import { useKeyRouter } from "./hooks/useKeyInput.js";
import { NowContext } from "./hooks/useNow.js";
import { useTerminalSize } from "./hooks/useTerminalSize.js";
import { type KeyStorage, keyRefusal, type Problem, type StartKeySource } from "./model/login.js";
import {
  type AppOptions,
  type AppServices,
  DEFAULT_OPTIONS,
  type EditText,
  type HandOver,
  type SaveEntries,
} from "./model/services.js";
import { LoginScreen } from "./screens/LoginScreen.js";
import { MainScreen } from "./screens/MainScreen.js";
import { StartingScreen } from "./screens/StartingScreen.js";

/**
 * The terminal UI's root. Everything it shows comes from the injected stores; it creates
 * none of them (the CLI entry does), so tests and the `snapshot` command mount it the same
 * way the interactive command does. It holds the one key listener; the screen on show takes
 * the keys from it.
 */

export interface AppProps {
  /** Stores and the stream controller for a verified key; null shows the login screen. */
  services: AppServices | null;
  /**
   * With `services` null: builds the services for the key there is, called once the first
   * frame (StartingScreen) is on screen, so that the client loads after it; resolving null
   * shows the login screen. Rejecting ends the UI through `onError`.
   */
  connect?: (() => Promise<AppServices | null>) | null;
  /** The start-up's `connect` failed (the caller ends the UI and reports it). */
  onError?: (e: unknown) => void;
  profile: string;
  baseUrl: string;
  options?: Partial<AppOptions>;
  /** Sessions to open in panes at start (`agent-sessions open ses_a ses_b`). */
  initialSessions?: readonly string[];
  /**
   * Login screen: verify the key, store it, and build the services for it. Rejecting shows
   * the error's message (it must not contain the key).
   */
  onLogin?: (key: string, storage: KeyStorage) => Promise<AppServices>;
  /**
   * Why the login screen cannot keep a key here (no OS keychain) and the ways out, as the
   * credentials layer words them; shown before anything is pasted.
   */
  keychainProblem?: Problem | null;
  /**
   * Where the key of `services` came from: when the service refuses it, the login screen
   * opens with the refusal and a way out that fits the source.
   */
  keySource?: StartKeySource | null;
  /** Where the login screen's plain-text choice writes the key (said before it is chosen). */
  keyFile?: string | null;
  /** q (confirmed) and Ctrl-C. The caller unmounts, closes streams and restores the terminal. */
  onExit: () => void;
  /** Where the pane's `e` (save) writes; without it, saving says it is not available. */
  onSave?: SaveEntries;
  /** Where the prompt box's editor key edits (the user's $VISUAL/$EDITOR). */
  onEditText?: EditText;
  /**
   * Gives the terminal to something else (`@`: the shell full screen) while the App reads no
   * keys and draws nothing; without it `@` says it is not available.
   */
  onHandOver?: HandOver;
  /** Clock for countdowns and ages (fixed in snapshot tests). */
  now?: () => number;
}

/** A use of the terminal waiting for the App to let go of it. */
interface Lending {
  use: () => Promise<unknown>;
  settle: (r: { value: unknown } | { error: unknown }) => void;
}

const EMPTY: readonly string[] = [];

const NO_STORE = { subscribe: () => () => {}, getState: () => null };

/** What the service said when it refused the key of these services (null: not refused). */
function useRefusedKey(services: AppServices | null): string | null {
  const store = services?.identity ?? NO_STORE;
  return useSyncExternalStore(store.subscribe, () => {
    const error = store.getState()?.error;
    return error?.code === "invalid_key" ? error.message : null;
  });
}

/**
 * The services `connect` builds: "pending" until it settles (and when there is no `connect`,
 * null). It runs after the first frame has been written.
 */
function useConnect(
  connect: (() => Promise<AppServices | null>) | null,
  onError: ((e: unknown) => void) | undefined,
): AppServices | null | "pending" {
  const [state, setState] = useState<AppServices | null | "pending">(connect ? "pending" : null);
  const first = useRef(connect);
  const fail = useRef(onError);
  useEffect(() => {
    const run = first.current;
    if (!run) return;
    let live = true;
    // Once the frame just committed has been written (Ink may write it after its effects).
    const later = setImmediate(() => {
      run().then(
        (s) => {
          if (live) setState(s);
        },
        (e: unknown) => {
          if (live) fail.current?.(e);
        },
      );
    });
    return () => {
      live = false;
      clearImmediate(later);
    };
  }, []);
  return state;
}

export function App(props: AppProps) {
  const options = useMemo<AppOptions>(
    () => ({ ...DEFAULT_OPTIONS, ...props.options }),
    [props.options],
  );
  const theme = useMemo(() => createTheme(options.noColor), [options.noColor]);
  const size = useTerminalSize();
  // While the terminal is handed over, no key is read and nothing is drawn; the tree stays
  // mounted (display none), so the UI comes back exactly as it was.
  const [lending, setLending] = useState<Lending | null>(null);
  const keys = useKeyRouter(lending === null);
  const { onHandOver } = props;
  useEffect(() => {
    // Runs after Ink's input cleanup of the same commit: stdin and raw mode are free now.
    if (!lending || !onHandOver) return;
    onHandOver(lending.use).then(
      (value) => lending.settle({ value }),
      (error: unknown) => lending.settle({ error }),
    );
  }, [lending, onHandOver]);
  // One hand-over at a time: a second @ in the same read finds the terminal already lent.
  const lent = useRef(false);
  const handOver = useCallback(
    <T,>(use: () => Promise<T>) =>
      new Promise<T>((resolve, reject) => {
        if (lent.current) {
          reject(new Error("the terminal is already handed over"));
          return;
        }
        lent.current = true;
        setLending({
          use,
          settle: (r) => {
            lent.current = false;
            setLending(null);
            if ("error" in r) reject(r.error);
            else resolve(r.value as T);
          },
        });
      }),
    [],
  );
  const [loggedIn, setLoggedIn] = useState<AppServices | null>(null);
  const connected = useConnect(props.connect ?? null, props.onError);
  const started = props.services ?? (connected === "pending" ? null : connected);
  // A key the service refuses opens the login screen, with the refusal, not an empty list.
  const refused = useRefusedKey(loggedIn ? null : started);
  const services = loggedIn ?? (refused === null ? started : null);
  const now = props.now ?? Date.now;
  // New services (another key) mean a fresh screen: its UI state belongs to the old ones.
  const generation = useRef<{ services: AppServices | null; n: number }>({ services, n: 0 });
  if (generation.current.services !== services) {
    generation.current = { services, n: generation.current.n + 1 };
  }
  const { onLogin, onExit } = props;
  const attachShell = services?.attachShell;
  const attach = useMemo(
    () =>
      attachShell && onHandOver
        ? (sessionId: string) => handOver(() => attachShell(sessionId))
        : null,
    [attachShell, onHandOver, handOver],
  );

  const login = useCallback(
    async (key: string, storage: KeyStorage) => {
      if (!onLogin) throw new Error("Signing in here is not available: run agent-sessions login");
      setLoggedIn(await onLogin(key, storage));
    },
    [onLogin],
  );

  let screen: React.ReactElement;
  if (!services && !loggedIn && connected === "pending") {
    screen = <StartingScreen profile={props.profile} baseUrl={props.baseUrl} size={size} />;
  } else if (services) {
    screen = (
      <ServicesContext.Provider value={services}>
        <MainScreen
          key={generation.current.n}
          services={services}
          profile={props.profile}
          baseUrl={props.baseUrl}
          options={options}
          initialSessions={props.initialSessions ?? EMPTY}
          size={size}
          onExit={onExit}
          save={props.onSave ?? null}
          editText={props.onEditText ?? null}
          attach={attach}
        />
      </ServicesContext.Provider>
    );
  } else {
    screen = (
      <LoginScreen
        profile={props.profile}
        baseUrl={props.baseUrl}
        size={size}
        onLogin={login}
        onExit={onExit}
        keychainProblem={props.keychainProblem ?? null}
        refusal={refused === null ? null : keyRefusal(refused, props.keySource ?? null)}
        keyFile={props.keyFile ?? null}
      />
    );
  }
  return (
    <KeyRouterContext.Provider value={keys}>
      <NowContext.Provider value={now}>
        <ThemeContext.Provider value={theme}>
          <Box flexDirection="column" display={lending ? "none" : "flex"}>
            {screen}
          </Box>
        </ThemeContext.Provider>
      </NowContext.Provider>
    </KeyRouterContext.Provider>
  );
}
