# Drive zsh's real completion system on one command line and write the candidates to a file.
#   zsh -f tests/zsh_complete.zsh FPATH_DIR OUTFILE "toolprune spill list --"
# An interactive zsh runs in a pseudo-terminal (zpty); compadd is wrapped so that every candidate
# the completion functions add is appended to OUTFILE, and a post-completion hook writes __END__,
# the event this script waits for (at most ~10 s).
zmodload zsh/zpty || exit 3
local dir=$1 out=$2 line=$3
zpty -b z zsh -f -i
zpty -w z "PS1=''; fpath=($dir \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z "compadd() { local -a __h; if [[ \${(j: :)@} == *-[OAD]\\ * ]]; then builtin compadd \"\$@\"; return; fi; builtin compadd -A __h \"\$@\"; (( \$#__h )) && print -rl -- \$__h >> $out; builtin compadd \"\$@\"; }"
zpty -w z "_tp_done() { print -r -- __END__ >> $out }; comppostfuncs=(_tp_done); bindkey '^I' complete-word; zstyle ':completion:*' list-grouped false"
zpty -w -n z "$line"$'\t'
integer n=0
while (( n++ < 200 )); do
  [[ -f $out ]] && grep -q __END__ $out && break
  zpty -r -t z junk >/dev/null 2>&1
  sleep 0.05
done
zpty -d z
