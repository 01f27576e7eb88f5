/**
 * A compact multilingual lexicon of what text addressed to a model talks about (design
 * §4): the assistant, the user, hiding, first/always, ignoring, confirmation, approval,
 * secrets, sending, attaching, contents. Ten languages: English, Chinese, Spanish, French,
 * German, Japanese, Portuguese, Russian, Korean, Italian. Each concept is one row per
 * language, matched on text in lower case after NFKC (not folded to ASCII: Russian stays
 * Cyrillic). The rules in content-rules.ts combine concepts within one sentence; no
 * concept alone is a finding.
 */
export type Language = 'en' | 'zh' | 'es' | 'fr' | 'de' | 'ja' | 'pt' | 'ru' | 'ko' | 'it';

export type Concept =
  | 'assistant'
  | 'user'
  | 'conceal'
  | 'first'
  | 'ignore'
  | 'instructions'
  | 'no-confirm'
  | 'secret'
  | 'send'
  | 'attach'
  | 'contents'
  | 'conversation';

/** Words of each concept per language, as regular-expression alternatives. */
export const LEXICON: Readonly<Record<Concept, Readonly<Record<Language, string>>>> = {
  assistant: {
    en: String.raw`\b(?:assistant|the model|the ai|ai agent|the agent|llm|you must|you should|you will)\b`,
    zh: '助手|模型|人工智能|智能体|你必须|你应该|请你',
    es: String.raw`asistente|el modelo|la ia\b|agente|debes\b`,
    fr: String.raw`assistant|le modèle|l'ia\b|agent\b|vous devez|tu dois`,
    de: String.raw`assistent|das modell|die ki\b|agent\b|du musst|sie müssen`,
    ja: 'アシスタント|モデル|エージェント|あなたは',
    pt: String.raw`assistente|o modelo|a ia\b|agente|você deve`,
    ru: 'ассистент|помощник|модель|агент|ты должен|вы должны',
    ko: '어시스턴트|모델|에이전트|당신은',
    it: String.raw`assistente|il modello|l'ia\b|agente|devi\b`,
  },
  user: {
    en: String.raw`\b(?:the user|users?|the human|the operator)\b`,
    zh: '用户|使用者',
    es: 'usuari[oa]',
    fr: 'utilisat(?:eur|rice)',
    de: String.raw`benutzer|nutzer|anwender`,
    ja: 'ユーザー|ユーザ|利用者',
    pt: 'usuári[oa]|utilizador',
    ru: 'пользовател',
    ko: '사용자|유저',
    it: 'utente',
  },
  conceal: {
    en: String.raw`\b(?:without (?:telling|informing|notifying|alerting|letting)|keep (?:this|it) (?:to yourself|between us|confidential)|no need to (?:tell|mention|inform)|don't bring (?:it|this) up)\b`,
    zh: '不要告诉|不要告知|不要提及|不要透露|别告诉|隐瞒|不要让|不要通知|不要显示|不要提到|不告诉',
    es: String.raw`no (?:le |se lo |lo )?(?:digas|diga|menciones|mencione|informes|informe|comuniques|reveles|avises|muestres)|sin (?:decir|informar|avisar|notificar|mencionar)|ocult|en secreto`,
    fr: String.raw`ne (?:le |lui |l'en |leur )?(?:dites|dis|mentionnez|mentionne|révélez|révèle|signalez|signale|informez|préviens|prévenez|montrez|affichez)|sans (?:le |l'|en )?(?:dire|informer|prévenir|mentionner|avertir)|cach(?:ez|er|e)\b|en secret`,
    de: String.raw`nicht (?:\S+ ){0,3}(?:erwähnen|sagen|mitteilen|informieren|verraten|anzeigen|benachrichtigen)|verschweig|verberg|verheimlich|ohne (?:den |die |das )?\S* ?(?:zu )?(?:informieren|benachrichtigen|fragen)|heimlich`,
    ja: '伝えないで|言わないで|知らせないで|教えないで|隠して|秘密に|通知しないで|見せないで|内緒',
    pt: String.raw`não (?:diga|mencione|informe|conte|revele|avise|mostre)|sem (?:avisar|informar|dizer|contar|mencionar)|escond|ocult|em segredo`,
    ru: String.raw`не (?:говори|сообщай|упоминай|рассказывай|показывай|уведомляй|информируй)|скрой|скрыть|скрывай|утаи|тайно|втайне`,
    ko: String.raw`말하지\s*마|알리지\s*마|숨기|언급하지\s*마|알려주지\s*마|비밀로`,
    it: String.raw`non (?:dire|dirlo|dirglielo|menzionare|informare|rivelare|comunicare|mostrare|avvisare)|senza (?:dire|informare|avvisare|menzionare)|nascond|di nascosto`,
  },
  first: {
    en: String.raw`\b(?:always|first|before (?:any|every|all|each)|every (?:conversation|session|chat|request|time)|at the (?:start|beginning) of)\b`,
    zh: '总是|始终|首先|每次|之前|务必|一定要',
    es: String.raw`siempre|primero|antes de|cada (?:conversación|sesión|vez)`,
    fr: String.raw`toujours|d'abord|avant (?:de|tout|chaque)|chaque (?:conversation|session|fois)`,
    de: String.raw`immer|zuerst|vor (?:jede|jedem|allen)|jede[nm]? (?:gespräch|sitzung|mal)`,
    ja: '常に|必ず|最初に|毎回|前に|いつも',
    pt: String.raw`sempre|primeiro|antes de|cada (?:conversa|sessão|vez)`,
    ru: 'всегда|сначала|перед|каждом|каждый раз|обязательно',
    ko: '항상|먼저|매번|반드시|전에',
    it: String.raw`sempre|prima (?:di|del)|ogni (?:conversazione|sessione|volta)`,
  },
  ignore: {
    en: String.raw`\b(?:ignore|disregard|override|forget|bypass)\b`,
    zh: '忽略|无视|忽视|不理会|覆盖',
    es: String.raw`ignora|ignore|ignorar|omite|olvida`,
    fr: String.raw`ignore[rz]?\b|ignorez|oublie[rz]?\b|outrepass`,
    de: String.raw`ignorier|vergiss|missacht|übergeh`,
    ja: '無視|忘れて',
    pt: String.raw`ignor[ea]|esqueça|desconsider`,
    ru: 'игнорир|игнорируй|забудь|пренебреги',
    ko: '무시|잊어',
    it: String.raw`ignora|dimentica|trascura`,
  },
  instructions: {
    en: String.raw`\b(?:instructions|rules|guidelines|system prompt|policies|safety)\b`,
    zh: '指令|指示|规则|说明|提示词|限制',
    es: String.raw`instrucciones|reglas|indicaciones|normas`,
    fr: String.raw`instructions|consignes|règles|directives`,
    de: String.raw`anweisungen|regeln|vorgaben|richtlinien|anordnungen`,
    ja: '指示|命令|ルール|制約|プロンプト',
    pt: String.raw`instruções|regras|diretrizes|orientações`,
    ru: 'инструкци|правил|указани|ограничени',
    ko: '지시|명령|규칙|지침',
    it: String.raw`istruzioni|regole|direttive|indicazioni`,
  },
  'no-confirm': {
    en: String.raw`\b(?:pre-?approved|already (?:been )?(?:approved|authorized|authorised)|allow-?listed|whitelisted|(?:do not|don't|never|no need to) (?:ask|request|wait) (?:the user )?(?:for )?(?:confirmation|permission|approval|consent)|without (?:asking|requesting|waiting)(?: the user)?(?: for)? (?:confirmation|permission|approval|consent)|skip (?:the |any |all )?(?:confirmation|approval|permission)s?|no (?:confirmation|approval|permission) (?:is )?(?:needed|required))\b`,
    zh: '无需确认|不需要确认|无需批准|无需许可|已预先批准|已被批准|已批准|跳过确认|不要请求确认|不必确认|不用确认|无需征得',
    es: String.raw`sin (?:pedir |solicitar )?(?:confirmación|permiso|aprobación)|preaprobad|pre-aprobad|ya (?:está |ha sido )?aprobad|no (?:pidas|solicites|pida) (?:confirmación|permiso)`,
    fr: String.raw`sans (?:demander |attendre )?(?:de |la |une )?(?:confirmation|permission|autorisation|validation)|pré-?approuv|déjà (?:été )?(?:approuv|autoris)|ne (?:demandez|demande) pas (?:de )?(?:confirmation|permission)`,
    de: String.raw`ohne (?:rück)?(?:bestätigung|nachfrage|erlaubnis|genehmigung|zustimmung)|vorab genehmigt|bereits (?:genehmigt|freigegeben|autorisiert)|keine (?:bestätigung|genehmigung|rückfrage)`,
    ja: '確認不要|確認せず|承認済み|事前承認|許可不要|確認を求めない|確認なしで',
    pt: String.raw`sem (?:pedir |solicitar )?(?:confirmação|permissão|aprovação)|pré-?aprovad|já (?:foi )?(?:aprovad|autorizad)|não (?:peça|solicite) (?:confirmação|permissão)`,
    ru: String.raw`без (?:подтверждени|разрешени|согласовани|одобрени)|предварительно одобрен|уже одобрен|не (?:спрашивай|запрашивай) (?:подтверждени|разрешени)`,
    ko: String.raw`확인\s*없이|사전\s*승인|이미\s*승인|허락\s*없이|승인\s*없이|확인을\s*요청하지`,
    it: String.raw`senza (?:chiedere |richiedere )?(?:conferma|permesso|approvazione|autorizzazione)|pre-?approvat|già (?:stato )?(?:approvat|autorizzat)|non (?:chiedere|richiedere) (?:conferma|permesso)`,
  },
  secret: {
    en: String.raw`\b(?:credentials?|secrets?|api[ _-]?keys?|access[ _-]?tokens?|tokens?|passwords?|passphrases?|private[ _-]?keys?|ssh[ _-]?keys?|cookies?|seed phrases?|kubeconfig|environment variables|env vars?)\b`,
    zh: '密码|密钥|令牌|凭据|凭证|私钥|口令|环境变量|助记词|cookie',
    es: String.raw`contraseñas?|claves?|credenciales|tokens?|secretos?|variables de entorno`,
    fr: String.raw`mots? de passe|clés?|clefs?|identifiants|jetons?|secrets?|variables d'environnement`,
    de: String.raw`passw(?:ort|örter)|schlüssel|zugangsdaten|anmeldedaten|token|geheimnisse?|umgebungsvariablen`,
    ja: 'パスワード|秘密鍵|鍵|トークン|認証情報|資格情報|環境変数|シークレット|クッキー',
    pt: String.raw`senhas?|chaves?|credenciais|tokens?|segredos?|variáveis de ambiente`,
    ru: 'парол|ключ|токен|учетн|учётн|секрет|переменные окружения|куки',
    ko: '비밀번호|암호|키|토큰|자격\\s*증명|환경\\s*변수|쿠키',
    it: String.raw`password|chiavi?|credenziali|token|segreti?|variabili d'ambiente`,
  },
  send: {
    en: String.raw`\b(?:send|sent|upload|forward|post|transmit|exfiltrat|relay|beacon)\w*|\breport (?:it|them|back)\b`,
    zh: '发送|上传|转发|传给|提交|发给|发到',
    es: String.raw`envía|envia|enviar|envíe|sube|subir|reenvía|manda|mandar|transmite`,
    fr: String.raw`envoie|envoyez|envoyer|transmet|téléverse|transfère|transférez|poste[rz]?\b`,
    de: String.raw`sende|senden|schick|übermittel|hochlad|weiterleit|übertrag`,
    ja: '送信|送って|送る|アップロード|転送',
    pt: String.raw`envie|enviar|envia|mande|encaminhe|carregue|transmita`,
    ru: 'отправ|перешли|пересыл|загрузи|передай|передать',
    ko: '보내|전송|업로드|전달',
    it: String.raw`invia|inviare|manda|inoltra|carica|trasmetti`,
  },
  attach: {
    en: String.raw`\b(?:includ|attach|append|embed|insert|past|put|pass|add|provid|suppl|fill|shar|cop(?:y|ies))\w*`,
    zh: '附上|附加|包含|放入|加入|填入|粘贴|放在|放到|作为',
    es: String.raw`incluy|incluir|adjunt|añad|agreg|pon\b|poner|pega|pasa\b|pasar`,
    fr: String.raw`inclu|joign|joindre|ajout|mett|insér|coll|passe[rz]?\b|fourni`,
    de: String.raw`füge|fügen|anhäng|anhängen|einfüg|beifüg|mitschick|übergeb|einsetz|gib`,
    ja: '含めて|添付|追加|入れて|貼り付け|渡して|記入',
    pt: String.raw`inclua|incluir|anexe|anexar|adicione|coloque|cole|passe\b|forneça`,
    ru: 'включи|приложи|добав|встав|помести|укажи|передай',
    ko: '포함|첨부|추가|넣어|붙여|전달',
    it: String.raw`includi|includere|allega|aggiungi|inserisci|metti|incolla|passa\b|fornisci`,
  },
  contents: {
    en: String.raw`\b(?:contents? of|full text of|the entire|verbatim)\b`,
    zh: '内容|全文',
    es: 'contenido|íntegro',
    fr: 'contenu|intégral',
    de: 'inhalt',
    ja: '内容|中身|全文',
    pt: 'conteúdo|íntegra',
    ru: 'содержим|содержани|целиком',
    ko: '내용|전체',
    it: 'contenuto|integrale',
  },
  conversation: {
    en: String.raw`\b(?:conversation history|chat history|system prompt|previous messages|entire conversation|full conversation|prior messages|(?:whole|entire) chat)\b`,
    zh: '对话历史|聊天记录|系统提示|对话内容|之前的消息',
    es: String.raw`historial de (?:la )?conversación|prompt del sistema|mensajes anteriores|conversación completa`,
    fr: String.raw`historique de (?:la )?conversation|prompt système|messages précédents|conversation entière`,
    de: String.raw`gesprächsverlauf|chatverlauf|systemprompt|system-prompt|vorherigen nachrichten`,
    ja: '会話履歴|チャット履歴|システムプロンプト|以前のメッセージ',
    pt: String.raw`histórico d[ae] conversa|prompt do sistema|mensagens anteriores|conversa inteira`,
    ru: 'историю переписки|история переписки|историю разговора|системный промпт|предыдущие сообщения',
    ko: '대화\\s*기록|시스템\\s*프롬프트|이전\\s*메시지',
    it: String.raw`cronologia della conversazione|prompt di sistema|messaggi precedenti|conversazione intera`,
  },
};

/** One pattern for a concept across every language. */
const PATTERNS = new Map<string, RegExp>();

export function conceptPattern(concept: Concept, except: readonly Language[] = []): RegExp {
  const key = `${concept} ${except.join(',')}`;
  const known = PATTERNS.get(key);
  if (known !== undefined) return known;
  const pattern = buildPattern(concept, except);
  PATTERNS.set(key, pattern);
  return pattern;
}

function buildPattern(concept: Concept, except: readonly Language[]): RegExp {
  const parts = Object.entries(LEXICON[concept])
    .filter(([language]) => !except.includes(language as Language))
    .map(([, words]) => `(?:${words})`);
  return new RegExp(parts.join('|'), 'u');
}

/** The languages a text uses words of, for a concept (tests and the bench table read it). */
export function languagesOf(concept: Concept, text: string): Language[] {
  return (Object.entries(LEXICON[concept]) as Array<[Language, string]>)
    .filter(([, words]) => new RegExp(words, 'u').test(text))
    .map(([language]) => language);
}
