/* desugar_pat.c — what the desugarer needs to know about patterns and constructors.
 *
 * The match compiler (match.c) sees only four kinds of test: a constructor, a
 * primitive literal, an overloaded literal compared with (==), and a bang (force).
 * Everything else is normalised here into constructor form first: tuples and lists
 * become applications of the built-in constructors, record patterns become
 * positional ones with wildcards for the missing fields, a Char literal 'c' becomes
 * C# 'c'# (kernel wants Char unboxed), and a short string literal becomes the list of
 * its characters, so that string patterns share tests like a trie.
 *
 * Also here: constructor facts read from the renamed declarations (FeName.decl is the
 * data/newtype declaration of a constructor, also for the built-in list, unit and
 * tuple types), the variables of a pattern, GHC's notion of a failable pattern in
 * `do`, and the printing of patterns in GHC's style for runtime messages such as
 * "Non-exhaustive patterns in Just (a, b)".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "desugar_internal.h"

/* ---- constructors ------------------------------------------------------------------ */

FeDecl *fe_ds_con_decl(FeName *con) {
  if (!con) return NULL;
  FeDecl *d = con->decl;
  if (d && (d->kind == D_DATA || d->kind == D_NEWTYPE)) return d;
  if (con->parent && con->parent->decl) {
    d = con->parent->decl;
    if (d->kind == D_DATA || d->kind == D_NEWTYPE) return d;
  }
  return NULL;
}

FeConDecl *fe_ds_con_info(FeName *con) {
  FeDecl *d = fe_ds_con_decl(con);
  if (!d) return NULL;
  for (int i = 0; i < d->cons.len; i++)
    if (d->cons.data[i]->name.ref == con) return d->cons.data[i];
  for (int i = 0; i < d->cons.len; i++)
    if (d->cons.data[i]->name.name == con->occ) return d->cons.data[i];
  return NULL;
}

int fe_ds_con_arity(FeName *con) {
  FeConDecl *c = fe_ds_con_info(con);
  return c ? c->fields.len : -1;
}

bool fe_ds_is_newtype_con(FeName *con) {
  FeDecl *d = fe_ds_con_decl(con);
  return d && d->kind == D_NEWTYPE;
}

int fe_ds_type_con_count(FeName *con) {
  FeDecl *d = fe_ds_con_decl(con);
  return d ? d->cons.len : -1;
}

int fe_ds_field_index(FeName *con, const FeIdent *field) {
  FeConDecl *c = fe_ds_con_info(con);
  if (!c) return -1;
  for (int i = 0; i < c->fields.len; i++)
    if (field->ref && c->fields.data[i].label.ref == field->ref) return i;
  Sym occ = field->ref ? field->ref->occ : field->name;
  for (int i = 0; i < c->fields.len; i++)
    if (occ && c->fields.data[i].label.name == occ) return i;
  return -1;
}

const char *fe_ds_pat_name_hint(const FePat *p) {
  for (int i = 0; p && i < 100; i++, p = p->sub) {
    if ((p->kind == P_VAR || p->kind == P_AS) && p->id.ref && p->id.ref->occ) return p->id.ref->occ;
    if (p->kind != P_LAZY && p->kind != P_BANG && p->kind != P_PAREN) return NULL;
  }
  return NULL;
}

/* ---- variables and failability ------------------------------------------------------- */

void fe_ds_pat_vars(const FePat *p, FeNameVec *out) {
  /* iterative over the `sub` chain, recursive over arguments (bounded by the
   * renamer's depth limit) */
  while (p) {
    switch (p->kind) {
    case P_VAR:
      if (p->id.ref) LZ_PUSH(*out, p->id.ref);
      return;
    case P_AS:
      if (p->id.ref) LZ_PUSH(*out, p->id.ref);
      p = p->sub;
      continue;
    case P_LAZY:
    case P_BANG:
    case P_PAREN: p = p->sub; continue;
    case P_CON:
    case P_TUPLE:
    case P_LIST:
    case P_OPSEQ:
      for (int i = 0; i < p->args.len; i++)
        fe_ds_pat_vars(p->args.data[i], out);
      return;
    case P_REC:
      for (int i = 0; i < p->fields.len; i++)
        fe_ds_pat_vars(p->fields.data[i].pat, out);
      return;
    case P_WILD:
    case P_LIT: return;
    }
    return;
  }
}

static bool irrefutable(const FePat *p) {
  while (p) {
    switch (p->kind) {
    case P_VAR:
    case P_WILD:
    case P_LAZY: return true;
    case P_AS:
    case P_BANG:
    case P_PAREN: p = p->sub; continue;
    case P_TUPLE:
      for (int i = 0; i < p->args.len; i++)
        if (!irrefutable(p->args.data[i])) return false;
      return true;
    case P_CON:
      if (fe_ds_type_con_count(p->id.ref) != 1) return false;
      for (int i = 0; i < p->args.len; i++)
        if (!irrefutable(p->args.data[i])) return false;
      return true;
    case P_REC:
      if (fe_ds_type_con_count(p->id.ref) != 1) return false;
      for (int i = 0; i < p->fields.len; i++)
        if (!irrefutable(p->fields.data[i].pat)) return false;
      return true;
    default: return false;
    }
  }
  return true;
}

bool fe_ds_pat_failable(const FePat *p) { return !irrefutable(p); }

/* ---- literals ------------------------------------------------------------------------- */

static bool str_eq(const char *a, const char *b) {
  if (!a || !b) return a == b;
  return strcmp(a, b) == 0;
}

bool fe_ds_lit_equal(const FeLit *a, const FeLit *b) {
  if (a->kind != b->kind) return false;
  switch (a->kind) {
  case L_INT:
  case L_PRIM_INT:
    if (a->fits && b->fits) return a->i == b->i && a->negative == b->negative;
    return a->negative == b->negative && str_eq(a->digits, b->digits);
  case L_FRAC:
  case L_PRIM_DOUBLE:
    if (a->negative != b->negative) return false;
    if (a->mantissa && b->mantissa) return a->exp10 == b->exp10 && str_eq(a->mantissa, b->mantissa);
    return a->d == b->d;
  case L_CHAR:
  case L_PRIM_CHAR: return a->ch == b->ch;
  case L_STRING:
  case L_PRIM_STRING:
    return a->len == b->len && (a->len == 0 || memcmp(a->str, b->str, a->len) == 0);
  }
  return false;
}

/* ---- normalisation ---------------------------------------------------------------------- */

FePat *fe_ds_pat_mk_con(FeName *con, int n, FePat **args, LzSpan at) {
  FePat *p = fe_pat_new(P_CON, at);
  p->id = fe_ident(NULL, con ? con->occ : lz_sym("?"), at);
  p->id.ref = con;
  for (int i = 0; i < n; i++)
    LZ_PUSH(p->args, args ? args[i] : NULL);
  return p;
}

/* Decode one UTF-8 code point at s[*i] (invalid bytes decode as themselves). */
static uint32_t utf8_next(const char *s, size_t len, size_t *i) {
  unsigned char c = (unsigned char)s[*i];
  int n = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
  if (*i + (size_t)n >= len + (n ? 0 : 1) || (c >= 0x80 && c < 0xC0)) n = 0;
  uint32_t cp = n == 0 ? c : n == 1 ? (c & 0x1F) : n == 2 ? (c & 0x0F) : (c & 0x07);
  for (int k = 1; k <= n; k++) {
    unsigned char cc = (unsigned char)s[*i + (size_t)k];
    if ((cc & 0xC0) != 0x80) {
      n = 0;
      cp = c;
      break;
    }
    cp = (cp << 6) | (cc & 0x3F);
  }
  *i += (size_t)n + 1;
  return cp;
}

/* 'c' as C# 'c'#, or NULL when C# is not known. */
static FePat *char_pat(uint32_t ch, LzSpan at) {
  FeName *chash = fe_ds_wired_name(DS_W_CHAR_CON);
  if (!chash) return NULL;
  FePat *lit = fe_pat_new(P_LIT, at);
  lit->lit.kind = L_PRIM_CHAR;
  lit->lit.ch = ch;
  return fe_ds_pat_mk_con(chash, 1, &lit, at);
}

/* String literals longer than this are compared with (==) instead of being matched
 * character by character (same semantics: eqString is lazy left to right too). */
#define DS_MAX_STRING_PAT 64

FePat *fe_ds_pat_normalise(FePat *p) {
  switch (p->kind) {
  case P_TUPLE: {
    FeName *con = fe_ds_tuple_con(p->args.len);
    return fe_ds_pat_mk_con(con, p->args.len, p->args.data, p->span);
  }
  case P_LIST: {
    FePat *acc = fe_ds_pat_mk_con(fe_builtin_nil(), 0, NULL, p->span);
    for (int i = p->args.len - 1; i >= 0; i--) {
      FePat *args[2] = {p->args.data[i], acc};
      acc = fe_ds_pat_mk_con(fe_builtin_cons(), 2, args, p->span);
    }
    return acc;
  }
  case P_REC: {
    FeName *con = p->id.ref;
    int arity = fe_ds_con_arity(con);
    if (arity < 0) arity = 0;
    FePat *q = fe_ds_pat_mk_con(con, arity, NULL, p->span);
    for (int i = 0; i < p->fields.len; i++) {
      int k = fe_ds_field_index(con, &p->fields.data[i].field);
      if (k >= 0 && k < arity) q->args.data[k] = p->fields.data[i].pat;
    }
    for (int i = 0; i < arity; i++)
      if (!q->args.data[i]) q->args.data[i] = fe_pat_new(P_WILD, p->span);
    return q;
  }
  case P_LIT:
    if (p->lit.kind == L_CHAR) {
      FePat *c = char_pat(p->lit.ch, p->span);
      return c ? c : p;
    }
    if (p->lit.kind == L_STRING && p->lit.len <= DS_MAX_STRING_PAT &&
        fe_ds_wired_name(DS_W_CHAR_CON)) {
      FePat *chars[DS_MAX_STRING_PAT];
      int n = 0;
      for (size_t i = 0; i < p->lit.len && n < DS_MAX_STRING_PAT;)
        chars[n++] = char_pat(utf8_next(p->lit.str, p->lit.len, &i), p->span);
      FePat *acc = fe_ds_pat_mk_con(fe_builtin_nil(), 0, NULL, p->span);
      for (int i = n - 1; i >= 0; i--) {
        FePat *args[2] = {chars[i], acc};
        acc = fe_ds_pat_mk_con(fe_builtin_cons(), 2, args, p->span);
      }
      return acc;
    }
    return p;
  default: return p;
  }
}

/* ---- printing in GHC's style -------------------------------------------------------------- */

/* Precedence contexts: 0 top level, 1 operand of an infix constructor, 2 argument of
 * a constructor application (or after @ ~ !). */
static void print_pat(FILE *f, const FePat *p, int prec, int depth);

static bool is_sym(Sym s) { return s && s[0] && strchr("!#$%&*+./<=>?@\\^|-~:", s[0]); }

static void print_occ(FILE *f, const FeIdent *id, bool operand) {
  Sym occ = id->ref ? id->ref->occ : id->name;
  if (!occ) occ = "?";
  bool sym = is_sym(occ);
  if (sym && operand)
    fprintf(f, "(%s)", occ);
  else
    fputs(occ, f);
}

static void print_char(FILE *f, uint32_t c, char quote) {
  static const char *ascii[] = {"NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "a",
                                "b",   "t",   "n",   "v",   "f",   "r",   "SO",  "SI",
                                "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB",
                                "CAN", "EM",  "SUB", "ESC", "FS",  "GS",  "RS",  "US"};
  if (c == (uint32_t)quote || c == '\\')
    fprintf(f, "\\%c", (char)c);
  else if (c < 32)
    fprintf(f, "\\%s", ascii[c]);
  else if (c == 127)
    fputs("\\DEL", f);
  else if (c < 127)
    fputc((int)c, f);
  else
    fprintf(f, "\\%u", c);
}

static void print_lit(FILE *f, const FeLit *l) {
  switch (l->kind) {
  case L_INT:
  case L_PRIM_INT:
    fprintf(f, "%s%s%s", l->negative ? "-" : "", l->digits ? l->digits : "0",
            l->kind == L_PRIM_INT ? "#" : "");
    break;
  case L_FRAC:
  case L_PRIM_DOUBLE: {
    /* shortest decimal that reads back as d */
    char buf[64];
    for (int prec = 1; prec <= 17; prec++) {
      snprintf(buf, sizeof buf, "%.*g", prec, l->d);
      if (strtod(buf, NULL) == l->d) break;
    }
    if (!strpbrk(buf, ".eEni")) strcat(buf, ".0");
    fprintf(f, "%s%s%s", l->negative ? "-" : "", buf, l->kind == L_PRIM_DOUBLE ? "##" : "");
    break;
  }
  case L_CHAR:
  case L_PRIM_CHAR:
    fputc('\'', f);
    print_char(f, l->ch, '\'');
    fputc('\'', f);
    if (l->kind == L_PRIM_CHAR) fputc('#', f);
    break;
  case L_STRING:
  case L_PRIM_STRING:
    fputc('"', f);
    for (size_t i = 0; i < l->len;)
      print_char(f, utf8_next(l->str, l->len, &i), '"');
    fputc('"', f);
    if (l->kind == L_PRIM_STRING) fputc('#', f);
    break;
  }
}

static bool infix_con(const FePat *p) {
  return p->kind == P_CON && p->args.len == 2 && is_sym(p->id.ref ? p->id.ref->occ : p->id.name);
}

static void print_pat(FILE *f, const FePat *p, int prec, int depth) {
  if (!p) {
    fputc('_', f);
    return;
  }
  if (depth > 200) {
    fputs("...", f);
    return;
  }
  switch (p->kind) {
  case P_VAR: print_occ(f, &p->id, true); break;
  case P_WILD: fputc('_', f); break;
  case P_LIT: {
    bool paren = prec > 0 && p->lit.negative;
    if (paren) fputc('(', f);
    print_lit(f, &p->lit);
    if (paren) fputc(')', f);
    break;
  }
  case P_CON:
    if (p->args.len == 0) {
      print_occ(f, &p->id, true);
    } else if (infix_con(p)) {
      bool paren = prec > 0;
      if (paren) fputc('(', f);
      FeName *op = p->id.ref;
      const FePat *l = p->args.data[0], *r = p->args.data[1];
      /* an operand that is itself infix keeps no parentheses only on the side the
       * operator associates to, with the same operator */
      bool lbare = l && infix_con(l) && l->id.ref == op && op && op->assoc == ASSOC_LEFT;
      bool rbare = r && infix_con(r) && r->id.ref == op && (!op || op->assoc == ASSOC_RIGHT);
      print_pat(f, l, lbare ? 0 : 1, depth + 1);
      fputc(' ', f);
      print_occ(f, &p->id, false);
      fputc(' ', f);
      print_pat(f, r, rbare ? 0 : 1, depth + 1);
      if (paren) fputc(')', f);
    } else {
      bool paren = prec > 1;
      if (paren) fputc('(', f);
      print_occ(f, &p->id, true);
      for (int i = 0; i < p->args.len; i++) {
        fputc(' ', f);
        print_pat(f, p->args.data[i], 2, depth + 1);
      }
      if (paren) fputc(')', f);
    }
    break;
  case P_TUPLE:
  case P_LIST:
    fputc(p->kind == P_TUPLE ? '(' : '[', f);
    for (int i = 0; i < p->args.len; i++) {
      if (i) fputs(", ", f);
      print_pat(f, p->args.data[i], 0, depth + 1);
    }
    fputc(p->kind == P_TUPLE ? ')' : ']', f);
    break;
  case P_AS:
    print_occ(f, &p->id, true);
    fputc('@', f);
    print_pat(f, p->sub, 2, depth + 1);
    break;
  case P_LAZY:
  case P_BANG:
    fputc(p->kind == P_LAZY ? '~' : '!', f);
    print_pat(f, p->sub, 2, depth + 1);
    break;
  case P_REC: {
    bool paren = prec > 1;
    if (paren) fputc('(', f);
    print_occ(f, &p->id, true);
    fputs(" {", f);
    for (int i = 0; i < p->fields.len; i++) {
      if (i) fputs(", ", f);
      print_occ(f, &p->fields.data[i].field, true);
      fputs(" = ", f);
      print_pat(f, p->fields.data[i].pat, 0, depth + 1);
    }
    fputc('}', f);
    if (paren) fputc(')', f);
    break;
  }
  case P_PAREN:
    fputc('(', f);
    print_pat(f, p->sub, 0, depth + 1);
    fputc(')', f);
    break;
  case P_OPSEQ:
    for (int i = 0; i < p->args.len; i++) {
      if (i) fputc(' ', f);
      print_pat(f, p->args.data[i], 1, depth + 1);
    }
    break;
  }
}

char *fe_ds_pat_string(const FePat *p) {
  /* GHC drops the outer parentheses, bang and laziness of a binding's pattern */
  while (p && (p->kind == P_PAREN || p->kind == P_BANG || p->kind == P_LAZY) && p->sub)
    p = p->sub;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return lz_strdup("pattern");
  print_pat(f, p, 0, 0);
  fclose(f);
  char *s = lz_strndup(buf, len);
  free(buf);
  return s;
}
