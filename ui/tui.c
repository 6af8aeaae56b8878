/* SPDX-License-Identifier: BSD-3-Clause */
/* tui.c: the terminal while the view is up (htop's CRT.c ideas, our code).
 *
 *  - The view needs terminals on standard input and output (ncdu refuses a
 *    non-tty with a hint); tui_usable() says so before anything is opened.
 *  - stderr is parked in a temporary file while curses owns the screen, so
 *    nothing (libpcap, sanitizers, our own messages) scribbles over it; it is
 *    replayed to the real stderr once the terminal is back.
 *  - The terminal is restored on every way out: tui_done() on the normal
 *    path, atexit() for exit() anywhere, a handler for fatal signals (only
 *    async-signal-safe calls: tcsetattr, write, lseek, read), and the
 *    sanitizers' death callback. */
#define NCURSES_WIDECHAR 1

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "tui.h"
#include "tui_int.h"

static SCREEN *screen;
static FILE *tty_out;                    /* stdout, or /dev/tty when stdout is redirected */
static int tty_fd = -1;
static struct termios saved_tio;
static int have_tio;
static volatile sig_atomic_t tty_active; /* curses owns the terminal */
static int saved_stderr = -1;            /* the real stderr while parked */
static FILE *parked;                     /* where stderr goes meanwhile */
static struct sigaction old_fatal[NSIG];

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGQUIT };

/* The view draws on standard output when it is a terminal, else on
 * /dev/tty, so `nfsscope --tui ... > report.txt` keeps the final report. */
bool
tui_usable(char *err, size_t errlen)
{
    FILE *f;

    if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))
        return true;
    if (isatty(STDIN_FILENO) && (f = fopen("/dev/tty", "w")) != NULL) {
        fclose(f);
        return true;
    }
    snprintf(err, errlen, "the view needs a terminal (standard input and output, or"
                          " /dev/tty); --no-tui prints reports instead");
    return false;
}

/* Async-signal-safe: put the terminal back as it was before curses, leave
 * the alternate screen, show the cursor, and replay what stderr got. */
static void
restore_raw(void)
{
    static const char seq[] = "\033[?1049l\033[?25h\033[0m\r\n";
    char buf[4096];
    ssize_t r;

    if (!tty_active)
        return;
    tty_active = 0;
    if (have_tio)
        (void)tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
    (void)!write(tty_fd >= 0 ? tty_fd : STDOUT_FILENO, seq, sizeof seq - 1);
    if (saved_stderr >= 0) {
        (void)dup2(saved_stderr, STDERR_FILENO);
        if (parked && lseek(fileno(parked), 0, SEEK_SET) == 0)
            while ((r = read(fileno(parked), buf, sizeof buf)) > 0)
                (void)!write(STDERR_FILENO, buf, (size_t)r);
    }
}

static void
on_fatal(int sig)
{
    restore_raw();
    /* Hand the signal to whoever had it before (default, or a sanitizer). */
    sigaction(sig, &old_fatal[sig], NULL);
    raise(sig);
}

static void
on_exit_path(void)
{
    tui_done();
}

/* Sanitizers end the process with _exit() after their report (no atexit). */
extern void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

static void
on_sanitizer_death(void)
{
    restore_raw();
}

static void
park_stderr(void)
{
    fflush(stderr);
    parked = tmpfile();
    if (!parked)
        return; /* not fatal: stderr then shows through, as it would without the view */
    saved_stderr = dup(STDERR_FILENO);
    if (saved_stderr < 0 || dup2(fileno(parked), STDERR_FILENO) < 0) {
        if (saved_stderr >= 0)
            close(saved_stderr);
        saved_stderr = -1;
        fclose(parked);
        parked = NULL;
    }
}

static void
unpark_stderr(void)
{
    char buf[4096];
    size_t n;

    if (saved_stderr < 0)
        return;
    fflush(stderr);
    dup2(saved_stderr, STDERR_FILENO);
    close(saved_stderr);
    saved_stderr = -1;
    if (parked) {
        rewind(parked);
        while ((n = fread(buf, 1, sizeof buf, parked)) > 0)
            (void)!write(STDERR_FILENO, buf, n);
        fclose(parked);
        parked = NULL;
    }
}

int
tui_init(bool *utf8, char *err, size_t errlen)
{
    static int hooks;
    struct sigaction sa;
    size_t i;
    const char *cs;

    setlocale(LC_CTYPE, "");
    cs = nl_langinfo(CODESET);
    *utf8 = cs && strcmp(cs, "UTF-8") == 0;
    if (tcgetattr(STDIN_FILENO, &saved_tio) == 0)
        have_tio = 1;
    tty_out = isatty(STDOUT_FILENO) ? stdout : fopen("/dev/tty", "w");
    if (!tty_out) {
        snprintf(err, errlen, "cannot open the terminal: %s", strerror(errno));
        return -1;
    }
    tty_fd = fileno(tty_out);
    park_stderr();
    screen = newterm(NULL, tty_out, stdin);
    if (!screen) {
        unpark_stderr();
        if (tty_out != stdout)
            fclose(tty_out);
        tty_out = NULL;
        tty_fd = -1;
        snprintf(err, errlen, "cannot set up the terminal (TERM=%s)",
                 getenv("TERM") ? getenv("TERM") : "(unset)");
        return -1;
    }
    tty_active = 1;
    if (!hooks) {
        hooks = 1;
        atexit(on_exit_path);
        if (__sanitizer_set_death_callback)
            __sanitizer_set_death_callback(on_sanitizer_death);
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_NODEFER;
        for (i = 0; i < sizeof fatal_signals / sizeof *fatal_signals; i++)
            sigaction(fatal_signals[i], &sa, &old_fatal[fatal_signals[i]]);
    }
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    tui_colour_init();
    return 0;
}

void
tui_done(void)
{
    if (!tty_active)
        return;
    curs_set(1);
    endwin();
    tty_active = 0;
    if (screen) {
        delscreen(screen);
        screen = NULL;
    }
    if (have_tio)
        (void)tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
    if (tty_out && tty_out != stdout)
        fclose(tty_out);
    tty_out = NULL;
    tty_fd = -1;
    unpark_stderr();
}
